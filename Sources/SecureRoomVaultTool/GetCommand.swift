// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import SecureRoomVault

/// `secureroom-vault get TITLE`: print a secret's value.
struct GetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Write the value of the secret TITLE to standard output, and nothing else.",
        discussion:
            "The value is written exactly as stored (no newline added). Exit status 4 if there is no such secret.")

    @Argument(help: "The secret's title.")
    var title: String

    @OptionGroup var vault: VaultOptions

    func run() throws {
        try reportingFailures {
            let secret = try vault.open().secret(titled: title)
            try secret.value.withUnsafeBytes { try writeOutput($0) }
        }
    }
}
