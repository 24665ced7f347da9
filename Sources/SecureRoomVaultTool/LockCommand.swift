// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import SecureRoomCore

/// `secureroom-vault lock`.
struct LockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock",
        abstract: "Lock the vault now: remove its key from your kernel keyring.",
        discussion: "Succeeds if the vault was locked already.")

    func run() throws {
        try reportingFailures {
            let keyring = try VaultKeyring.current()
            print(try keyring.remove() ? localized("Vault locked.") : localized("Vault was already locked."))
        }
    }
}
