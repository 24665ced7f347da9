// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import SecureRoomBase

/// The prompt `Unlock` answers with when the vault is locked (docs/DESIGN.md §14). The PIN
/// is asked by PAM, never by this provider: when the client calls `Prompt`, the provider
/// says (in its log) to run `secureroom-vault unlock`, then watches the keyring until the
/// vault is unlocked (Completed, not dismissed, with the objects) or the wait runs out or
/// the client calls `Dismiss` (Completed, dismissed).
final class UnlockPrompt {
    /// Its object path.
    let path: String
    /// The unique bus name of the client it was made for.
    let owner: String
    /// The objects the client asked to unlock.
    let objects: [String]
    /// When the wait ends, once `Prompt` was called.
    private(set) var deadline: Deadline?

    init(path: String, owner: String, objects: [String]) {
        self.path = path
        self.owner = owner
        self.objects = objects
    }

    /// Starts the wait; false if it had started already.
    func start(until deadline: Deadline) -> Bool {
        guard self.deadline == nil else { return false }
        self.deadline = deadline
        return true
    }
}
