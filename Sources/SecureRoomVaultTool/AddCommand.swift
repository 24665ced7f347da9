// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import SecureRoomVault

/// `secureroom-vault add TITLE`: store a secret.
struct AddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Store a secret under TITLE.",
        discussion: """
            On a terminal the value is typed at a masked prompt (one line, nothing shown). \
            Otherwise every byte of standard input is the value, stored exactly (a final \
            newline included), up to 1 MiB. A title that exists already is refused unless \
            --replace is given. Needs an unlocked vault; the vault file is created by the \
            first 'add' after 'init' if it is missing.
            """)

    @Argument(help: "The secret's title (1 to 1024 bytes).")
    var title: String

    @Flag(help: "Overwrite a secret with the same title.")
    var replace = false

    @OptionGroup var vault: VaultOptions

    func run() throws {
        try reportingFailures {
            let store = try vault.open(create: true)
            let value = try ValueInput.read(prompt: "Value for \(VaultError.quoted(title)): ", limit: 1 << 20)
            try store.add(title: title, value: value, replace: replace)
        }
    }
}
