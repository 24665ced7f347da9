// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import SecureRoomVault

/// What a source read for `import`: the secrets, and the entries it could not read.
struct ImportBatch {
    /// The secrets, in the source's order.
    var secrets: [VaultStore.NewSecret] = []
    /// Entries that could not be read: their name and why.
    var unreadable: [(name: String, reason: String)] = []
}
