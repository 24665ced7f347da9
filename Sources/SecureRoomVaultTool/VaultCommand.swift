// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Glibc
import SecureRoomBase
import SecureRoomCommandLine
import SecureRoomProgramSupport

/// `secureroom-vault`: a user's secrets, opened by their SecureRoom PIN.
@main
struct VaultCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secureroom-vault",
        abstract: "Keep secrets (a title and a value each), encrypted at rest, opened by your SecureRoom PIN.",
        discussion: """
            The vault is a SQLite file in your data directory; every secret in it is sealed \
            with a random data key, and titles are not stored in clear. The data key is \
            itself kept by the system, wrapped under your PIN (and once more under a \
            recovery key shown when the vault is set up).

            Logging in with your PIN, or 'secureroom-vault unlock', puts the data key in your \
            kernel keyring for vault_timeout (default 15 minutes); it is removed when that \
            passes, when your last login session closes, or by 'secureroom-vault lock'. \
            While it is there, 'get', 'add', 'list' and the rest ask for nothing.

            EXIT STATUS
              0   success
              1   the operation failed (see the message)
              2   wrong PIN (unlock, init)
              3   the vault is locked (unlock it), or the PIN is locked
              4   no secret with that title
              5   another Secret Service provider owns org.freedesktop.secrets (serve)
              6   no vault to serve: run 'secureroom-vault init' first (serve)
              7   the PIN prompt was cancelled (unlock --pinentry)
              64  usage error

            FILES
              $XDG_DATA_HOME/secureroom/vault.sqlite
                  the vault (default ~/.local/share/secureroom/), mode 0600
              /etc/pam.d/secureroom-vault
                  the PAM service 'unlock' runs
              /etc/security/secureroom.conf
                  options (vault_timeout=, wipe_after=; secureroom.conf(5))
              /usr/lib/systemd/user/secureroom-secrets.service
                  the user unit that runs 'serve'
              /usr/share/dbus-1/services/org.freedesktop.secrets.secureroom.service
                  its D-Bus activation file
            """,
        version: releaseVersion,
        subcommands: [
            InitCommand.self, AddCommand.self, ImportCommand.self, ExportCommand.self, GetCommand.self,
            ListCommand.self,
            RemoveCommand.self,
            RenameCommand.self, StatusCommand.self, UnlockCommand.self, RecoverCommand.self, LockCommand.self,
            ServeCommand.self,
        ]
    )

    /// The entry point: no runtime crash handler (CrashHandlers), messages in the user's
    /// language, arguments that are text, then the parser.
    static func main() {
        CrashHandlers.restoreDefaults()
        Localized.useMessageLocale()
        refuseArgumentsThatAreNotUTF8()
        main(nil)
    }

    /// Titles are compared as the exact bytes given. The standard library turns invalid
    /// UTF-8 in arguments into U+FFFD, so `t\xff` and `t\xfe` would both become "t\u{FFFD}"
    /// and address one secret: such arguments are refused (exit 64) before anything else.
    private static func refuseArgumentsThatAreNotUTF8() {
        for index in 1..<Int(CommandLine.argc) {
            guard let argument = CommandLine.unsafeArgv[index] else { continue }
            let bytes = UnsafeBufferPointer(
                start: UnsafeRawPointer(argument).assumingMemoryBound(to: UInt8.self),
                count: strlen(argument))
            if String(validating: bytes, as: UTF8.self) == nil {
                ToolOutput.writeError(
                    "secureroom-vault: argument \(index) is not valid UTF-8; titles must be text "
                        + "(they are compared byte for byte, and other bytes would be altered)\n")
                Glibc.exit(64)
            }
        }
    }
}
