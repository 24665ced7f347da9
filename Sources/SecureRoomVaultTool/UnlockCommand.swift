// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import CPAMClient
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
            With --stdin the PIN is read as one line from standard input.

            When a PIN cannot open the vault (no PIN, no vault yet, a vault key erased by \
            wipe_after or kept only by the recovery key, SecureRoom not set up), it says so and \
            what to run instead, without asking for the PIN.
            """)

    @Flag(help: "Read the PIN as a line from standard input.")
    var stdin = false

    func run() throws {
        try reportingFailures {
            let keyring = try VaultKeyring.current()
            let configuration = try systemConfiguration()
            // A PIN cannot help in these states: say why and what works, and ask for none.
            if let explanation = try vaultState(of: keyring.user, configuration).explanation(for: keyring.user) {
                printError(explanation)
                throw ExitStatus.failure
            }
            let code = PAMUnlock(format: configuration.format, fromStdin: stdin).run(for: keyring.user)
            switch code {
            case PAM_SUCCESS: break
            case PAM_AUTH_ERR:
                printError("wrong PIN")
                throw ExitStatus.wrongPIN
            case PAM_MAXTRIES:
                printError("your PIN is locked (too many failed attempts)")
                throw ExitStatus.locked
            default:
                printError("PAM service \(PAMUnlock.service): \(PAMUnlock.describe(code)) (details in the system log)")
                throw ExitStatus.failure
            }
            guard let (_, secondsLeft) = try keyring.load() else {
                // The state changed since it was read (an administrator, a wipe_after).
                let state = try vaultState(of: keyring.user, configuration)
                printError(
                    "PIN accepted, but "
                        + (state.explanation(for: keyring.user) ?? "no vault key came with it; try again"))
                throw ExitStatus.failure
            }
            print("Vault unlocked for \(DurationText.spoken(secondsLeft)).")
        }
    }
}
