// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Where a failure tally is kept (docs/FORMAT.md §1): a user's own `NAME.lockout`, changed
/// under `NAME.lock`, or one of the 256 decoy slots `.decoy-XX` that users without a PIN
/// and unknown names share under `.decoy.lock` (`nopin=fail`: they get the same answers as
/// an enrolled user's wrong PIN, from state of bounded size, whatever names are tried).
public enum TallyFile: Equatable, Sendable {
    /// The user's own tally.
    case user(UserName)
    /// Decoy slot number `slot` (`PINKeys.decoy`).
    case decoy(UInt8)

    /// The record's file name in `users/`.
    var fileName: String {
        switch self {
        case .user(let user): return "\(user.rawValue).lockout"
        case .decoy(let slot): return ".decoy-" + Hex.encode([slot])
        }
    }

    /// The lock file's name in `users/`.
    var lockName: String {
        switch self {
        case .user(let user): return "\(user.rawValue).lock"
        case .decoy: return ".decoy.lock"
        }
    }
}
