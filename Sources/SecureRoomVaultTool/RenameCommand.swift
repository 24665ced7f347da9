// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import SecureRoomVault

/// `secureroom-vault rename OLD NEW`.
struct RenameCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rename",
        abstract: "Give the secret OLD the title NEW (its value is kept).",
        discussion: "Refused if NEW exists already. Exit status 4 if there is no secret OLD.")

    @Argument(help: "The current title.")
    var old: String

    @Argument(help: "The new title.")
    var new: String

    @OptionGroup var vault: VaultOptions

    func run() throws {
        try reportingFailures { try vault.open().rename(old, to: new) }
    }
}
