// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import SecureRoomVault

/// What a source read for `import`: the secrets, and the entries it could not read.
public struct ImportBatch {
    /// The secrets, in the source's order.
    public var secrets: [VaultStore.NewSecret]
    /// Entries that could not be read: their name and why.
    public var unreadable: [(name: String, reason: String)]

    /// A batch of `secrets` and `unreadable` entries.
    public init(secrets: [VaultStore.NewSecret] = [], unreadable: [(name: String, reason: String)] = []) {
        self.secrets = secrets
        self.unreadable = unreadable
    }
}
