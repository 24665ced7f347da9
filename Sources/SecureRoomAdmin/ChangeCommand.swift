// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Glibc
import SecureRoomCommandLine
import SecureRoomCore
import SecureRoomProgramSupport

/// `secureroom change [USER]`: change a PIN, knowing the current one.
struct ChangeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "change",
        abstract: "Change a PIN: the current PIN, then the new one twice.",
        discussion: """
            The current PIN is checked exactly as at login: a wrong one counts toward the \
            lockout, and a locked PIN cannot be changed. USER defaults to the invoking user. \
            With --stdin, two lines are read: current PIN, new PIN (no confirmation).

            Any user may change their own PIN: without root, the check and the change are \
            made by the setuid secureroom-helper (helper= in the config file, default \
            \(HelperProtocol.defaultPath)), which applies the policy in \
            \(Configuration.defaultConfigPath) and ignores --dir and --config. Only root \
            may name another user or use --allow-weak.
            """)

    @Argument(help: "The account (default: the invoking user).")
    var user: String?

    @Flag(help: "Read the PINs as lines from standard input.")
    var stdin = false

    @Flag(help: "Accept a new PIN the policy rejects (root only).")
    var allowWeak = false

    @OptionGroup var state: StateOptions

    func run() throws {
        try reportingFailures {
            let invoking = try invokingUser()
            let user = try existingUser(user ?? invoking)
            let asRoot = LocalPINAuthority.isAvailable
            if !asRoot {
                if user.rawValue != invoking { try refuse("only root can change another user's PIN") }
                if allowWeak { try refuse("--allow-weak needs root") }
                if state.dir != nil || state.config != nil { try refuse("--dir and --config need root") }
            }
            let store = try state.store()
            let configuration = store.configuration
            let outcome = try pinAuthority(for: store).change(
                user,
                current: {
                    try PINEntry.read(
                        prompt: localized("Current PIN: "), format: configuration.format, forceLine: stdin)
                },
                new: { current in
                    try readNewPIN(configuration, fromStdin: stdin, allowWeak: allowWeak, mayAllowWeak: asRoot) {
                        PINPolicy.refusal(replacing: current, with: $0)
                    }
                })
            // Without root the helper logs; as root this process does.
            if asRoot { SystemLog.open(identity: "secureroom") }
            switch outcome {
            case .success:
                if asRoot { SystemLog.notice("PIN changed for \(user)") }
                print(localized("PIN changed for {user}.", ["user": user.rawValue]))
            case .notEnrolled:
                printError(
                    asRoot
                        ? localized("{user} has no PIN; give one with 'secureroom set {user}'", ["user": user.rawValue])
                        : localized("{user} has no PIN; create one with 'secureroom enrol'", ["user": user.rawValue]))
                throw ExitStatus.failure
            case .locked:
                printError(Messages.text(for: outcome) ?? localized("Try again."))
                throw ExitStatus.locked
            case .incorrect, .repeatedIncorrect:
                if asRoot { SystemLog.warning("PIN change for \(user): wrong current PIN") }
                printError(Messages.text(for: outcome) ?? localized("Incorrect PIN."))
                throw ExitStatus.wrongPIN
            }
        }
    }
}
