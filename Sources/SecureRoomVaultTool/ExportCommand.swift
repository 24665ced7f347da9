// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import FoundationEssentials
import Glibc
import SecureRoomCommandLine
import SecureRoomCore
import SecureRoomVault

/// `secureroom-vault export`: every secret, as JSON, for `import` on another vault.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write every secret as a JSON array to standard output, as 'import' reads it.",
        discussion: """
            Each secret is an object with its title, its value ("value" when it is UTF-8 \
            text, else "value_base64"), label, content_type and attributes, sorted by title. \
            The output is the vault in plaintext: it is refused on a terminal unless --force \
            is given; send it to a file only you can read, and delete it when it has served.
            """)

    @Flag(help: "Write to standard output even when it is a terminal.")
    var force = false

    @OptionGroup var vault: VaultOptions

    func run() throws {
        try reportingFailures {
            if isatty(STDOUT_FILENO) == 1 && !force {
                printError(
                    "refusing to print every secret to the terminal; redirect standard output to a file "
                        + "(or give --force)")
                throw ExitStatus.failure
            }
            let store = try vault.open(create: false)
            let secrets = try store.secrets().sorted { $0.title.utf8.lexicographicallyPrecedes($1.title.utf8) }
            var text = try JSONOutput.text(secrets.map(ExportedSecret.init), pretty: true) + "\n"
            try text.withUTF8 { try writeOutput(UnsafeRawBufferPointer($0)) }
            printError(localized("exported {count} secret", plural: "exported {count} secrets", count: secrets.count))
        }
    }
}
