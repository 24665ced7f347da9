// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import SecureRoomBase
import SecureRoomCommandLine
import SecureRoomProgramSupport

/// `secureroom`: the administrator's tool for SecureRoom PINs.
@main
struct SecureRoomCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secureroom",
        abstract: "Manage SecureRoom PINs: enrol users, change and reset PINs, show lockouts and policy.",
        discussion: """
            SecureRoom checks a short numeric PIN through PAM (pam_secureroom.so) against an \
            argon2id record in a root-only state directory (default /var/lib/secureroom), with \
            escalating delays and a hard cap on consecutive failures.

            Options come from /etc/security/secureroom.conf (or --config), the same file and \
            keys the PAM module reads; --dir overrides its dir= setting.

            EXIT STATUS
              0   success
              1   the operation failed (see the message)
              2   wrong PIN
              3   the PIN is locked (delay running) or disabled
              64  usage error

            FILES
              /etc/security/secureroom.conf   options (secureroom.conf(5))
              /var/lib/secureroom/            state: the pepper, users/NAME.*
            """,
        version: releaseVersion,
        groupedSubcommands: [
            CommandGroup(
                name: "Any user (their own PIN)",
                subcommands: [
                    ChangeCommand.self, EnrolCommand.self, StatusCommand.self, PolicyCommand.self, TuneCommand.self,
                ]),
            CommandGroup(
                name: "Root only",
                subcommands: [
                    InitCommand.self, SetCommand.self, ExpireCommand.self, ResetCommand.self, TPMCommand.self,
                ]),
        ]
    )

    /// The entry point: no runtime crash handler (CrashHandlers), messages in the user's
    /// language, then the parser.
    static func main() {
        CrashHandlers.restoreDefaults()
        Localized.useMessageLocale()
        main(nil)
    }
}
