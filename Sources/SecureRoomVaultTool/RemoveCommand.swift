// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import SecureRoomVault

/// `secureroom-vault remove TITLE`.
struct RemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Delete the secret TITLE.",
        discussion: "Exit status 4 if there is no such secret.")

    @Argument(help: "The secret's title.")
    var title: String

    @OptionGroup var vault: VaultOptions

    func run() throws {
        try reportingFailures { try vault.open().remove(title: title) }
    }
}
