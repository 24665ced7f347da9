// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Glibc
import SecureRoomCommandLine
import SecureRoomCore
import SecureRoomProgramSupport

/// `secureroom enrol [--replace]`: a user creates (or replaces) their own PIN after
/// proving their password to the setuid helper (docs/SECURITY.md §6).
struct EnrolCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enrol",
        abstract: "Create your own PIN, after proving your password (run as yourself, not root).",
        discussion: """
            Your password is checked first, by secureroom-helper through the PAM service \
            \(HelperProtocol.enrolService) (/etc/pam.d/\(HelperProtocol.enrolService)): \
            whatever your system's password stack asks is asked here, and a wrong password \
            counts as a failed login there (pam_faillock, if configured), not as a wrong PIN. \
            A PIN never proves anything here. Then the new PIN is typed twice and checked \
            against the policy (digits=, blocklist=).

            --replace is for a forgotten PIN: the password replaces it. A vault the old PIN \
            opened does not open with the new one until your recovery key restores it: run \
            'secureroom-vault recover'.

            With enrol_vault in \(Configuration.defaultConfigPath) a first PIN also gets a \
            vault key and a recovery key, printed once; enrol_group= limits who may enrol. \
            With --stdin the answers come from standard input, one line each: the password \
            (and anything else the PAM stack asks), then the new PIN once.

            Users who have a PIN change it with 'secureroom change'. Root gives PINs with \
            'secureroom set USER'.
            """)

    @Flag(help: "Replace your PIN (forgotten) instead of creating a first one.")
    var replace = false

    @Flag(help: "Read the answers as lines from standard input.")
    var stdin = false

    func run() throws {
        try reportingFailures {
            guard getuid() != 0 else {
                printError(
                    localized("root gives PINs with 'secureroom set USER'; run enrol as the user who wants a PIN"))
                throw ExitStatus.failure
            }
            let user = try UserName(try invokingUser())
            let configuration = try Configuration.load(arguments: [], reader: ConfigurationFile.read)
            // Whether a secret the password check asked for has the PIN's form (only its form is kept).
            var pinShapedPassword = false
            let (_, recoveryKey) = try HelperClient(configuration: configuration).enrol(
                user, replace: replace,
                converse: { line in
                    switch line {
                    case .askSecret(let prompt):
                        let answer = try HiddenLine.read(
                            prompt: stdin ? "" : prompt, limit: HelperConversation.maximumAnswerLength)
                        if answer.withUnsafeBytes({ (try? configuration.format.pin(from: $0)) != nil }) {
                            pinShapedPassword = true
                        }
                        return answer
                    case .ask(let prompt):
                        if !stdin { ToolOutput.writeError(prompt) }
                        return try HiddenLine.readVisible(limit: HelperConversation.maximumAnswerLength)
                    case .sayError(let text), .say(let text):
                        ToolOutput.writeError(text + "\n")
                        return nil
                    }
                },
                newPIN: {
                    try readNewPIN(configuration, fromStdin: stdin, allowWeak: false, mayAllowWeak: false)
                })
            print(
                replace
                    ? localized("PIN replaced for {user}.", ["user": user.rawValue])
                    : localized("PIN created for {user}. Next time you can log in with it.", ["user": user.rawValue]))
            if replace {
                print(
                    localized(
                        "If your vault no longer opens with your PIN, run 'secureroom-vault recover' with your "
                            + "recovery key."))
            }
            if let recoveryKey { print(Messages.recoveryKeyShownOnce(recoveryKey, user: user) + "\n") }
            if pinShapedPassword {
                ToolOutput.writeError(Messages.pinShapedPassword(digits: configuration.format.digits) + "\n")
            }
        }
    }
}
