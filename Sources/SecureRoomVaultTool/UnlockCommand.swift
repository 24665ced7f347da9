// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import CPAMClient
import Glibc
import SecureRoomCommandLine
import SecureRoomCore
import SecureRoomProgramSupport
import SecureRoomVault

/// `secureroom-vault unlock`.
struct UnlockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Unlock the vault with your PIN, through the PAM service secureroom-vault.",
        discussion: """
            Asks for your PIN on the PIN pad and checks it through PAM (/etc/pam.d/secureroom-vault): \
            the same lockout as at login applies, and a wrong PIN counts. On success the \
            vault's key is in your kernel keyring for vault_timeout (default 15 minutes). \
            With --stdin the PIN is read as one line from standard input. With --pinentry \
            PROGRAM it is asked by that pinentry (Assuan: pinentry-gnome3, -gtk2, -qt, -curses, \
            -tty, or /usr/bin/pinentry as the system's alternative chooses; a terminal one uses \
            $GPG_TTY), up to 3 times, each wrong PIN's message shown above the next field and \
            a lockout's in a message box; this is what 'serve' runs when an application asks \
            for a locked vault.

            When a PIN cannot open the vault (no PIN, no vault yet, a vault key erased by \
            wipe_after or kept only by the recovery key, SecureRoom not set up), it says so and \
            what to run instead, without asking for the PIN.
            """)

    @Flag(help: "Read the PIN as a line from standard input.")
    var stdin = false

    @Option(help: ArgumentHelp("Ask for the PIN with this pinentry program (up to 3 tries).", valueName: "program"))
    var pinentry: String?

    /// How many PINs a pinentry asks for before giving up (the lockout counts each).
    static let pinentryTries = 3

    func validate() throws {
        if stdin && pinentry != nil { throw ValidationError("--stdin and --pinentry exclude each other") }
    }

    func run() throws {
        try reportingFailures {
            let keyring = try VaultKeyring.current()
            let configuration = try systemConfiguration()
            // A PIN cannot help in these states: say why and what works, and ask for none.
            if let explanation = try vaultState(of: keyring.user, configuration).explanation(for: keyring.user) {
                printError(explanation)
                throw ExitStatus.failure
            }
            let code = try unlock(keyring.user, format: configuration.format)
            switch code {
            case PAM_SUCCESS: break
            case PAM_AUTH_ERR:
                printError(localized("wrong PIN"))
                throw ExitStatus.wrongPIN
            case PAM_MAXTRIES:
                printError(localized("your PIN is locked (too many failed attempts)"))
                throw ExitStatus.locked
            default:
                printError(
                    localized(
                        "PAM service {service}: {problem} (details in the system log)",
                        ["service": PAMUnlock.service, "problem": PAMUnlock.describe(code)]))
                throw ExitStatus.failure
            }
            guard let (_, secondsLeft) = try keyring.load() else {
                // The state changed since it was read (an administrator, a wipe_after).
                let state = try vaultState(of: keyring.user, configuration)
                printError(
                    localized(
                        "PIN accepted, but {problem}",
                        [
                            "problem": state.explanation(for: keyring.user)
                                ?? localized("no vault key came with it; try again")
                        ]))
                throw ExitStatus.failure
            }
            // Whole minutes past one: the key was set for vault_timeout a moment ago, and a
            // second spent since is no news ("for 15 min", not "for 14 min 59 s").
            let shown = secondsLeft >= 60 ? (secondsLeft + 30) / 60 * 60 : secondsLeft
            print(localized("Vault unlocked for {duration}.", ["duration": DurationText.spoken(shown)]))
        }
    }

    /// The PAM code of the unlock: one try from the PIN pad or standard input, or up to
    /// `pinentryTries` with the pinentry, which shows why each failed.
    private func unlock(_ user: UserName, format: PINFormat) throws -> Int32 {
        guard let pinentry else {
            let result = PAMUnlock(format: format, fromStdin: stdin).run(for: user, error: nil)
            if result.code != PAM_SUCCESS, let failure = result.inputFailure {
                // No PIN was read: say why, and how to give one, not libpam's "Conversation error".
                printError(
                    stdin || isatty(STDIN_FILENO) == 1
                        ? failure
                        : localized(
                            "{problem} (standard input is not a terminal: give the PIN on it with --stdin, or ask "
                                + "with --pinentry PROGRAM)", ["problem": failure]))
                throw ExitStatus.failure
            }
            return result.code
        }
        let prompt = try Pinentry(program: pinentry)
        var error: String?
        for _ in 1...Self.pinentryTries {
            let result = PAMUnlock(format: format, fromStdin: false, pinentry: prompt).run(for: user, error: error)
            if result.cancelled {
                printError(localized("cancelled"))
                throw ExitStatus.cancelled
            }
            guard result.code == PAM_AUTH_ERR else {
                if result.code != PAM_SUCCESS, let message = result.lastMessage { try? prompt.message(message) }
                return result.code
            }
            error = result.lastMessage ?? localized("Incorrect PIN.")
        }
        return PAM_AUTH_ERR
    }
}
