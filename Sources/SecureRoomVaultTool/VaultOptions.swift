// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import SecureRoomCore
import SecureRoomVault

/// Options every subcommand that opens the vault file shares.
struct VaultOptions: ParsableArguments {
    @Option(
        name: .customLong("file"),
        help: ArgumentHelp("The vault file (default: $XDG_DATA_HOME/secureroom/vault.sqlite).", valueName: "path"))
    var file: String?

    /// The vault file in effect.
    func path() throws -> String {
        guard let file else { return try VaultLocation.defaultPath() }
        guard file.hasPrefix("/") else { throw VaultError.invalid("--file must be an absolute path") }
        return file
    }

    /// The vault, opened with the unlocked key; `locked` if there is none.
    func open(create: Bool = false) throws -> VaultStore {
        let keyring = try VaultKeyring.current()
        guard let (key, _) = try Self.unlockedKey(keyring) else { throw VaultError.locked(user: keyring.user.rawValue) }
        let path = try path()
        if create { try VaultLocation.prepareDirectory(for: path) }
        return try VaultStore(path: path, dataKey: key, create: create)
    }

    /// The key in `keyring` and its time left, or nil when the vault is locked — also when
    /// the login session that unlocked it, and every other session of the user, ended
    /// without closing (the key is then removed: `VaultKeyring.load(checkingSessionsIn:)`).
    static func unlockedKey(_ keyring: VaultKeyring) throws -> (vaultKey: SecretBytes, secondsLeft: Int64)? {
        try keyring.load(checkingSessionsIn: try systemConfiguration().sessionDirectory)
    }
}
