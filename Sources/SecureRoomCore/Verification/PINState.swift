// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// What a user may learn about their own PIN without typing it: whether they have one,
/// where its lockout stands, since when it must be changed. `secureroom status`, run by
/// the user, asks secureroom-helper's `pin-state` for it (the caller's own account only);
/// it holds nothing derived from the PIN and counts nothing.
public struct PINState: Equatable, Sendable {
    /// Where the lockout stands; nil without a PIN.
    public let status: LockoutStatus?
    /// Since when the PIN must be changed (Unix seconds), nil if it need not.
    public let mustChange: Int64?

    /// A state from its parts.
    public init(status: LockoutStatus?, mustChange: Int64?) {
        self.status = status
        self.mustChange = mustChange
    }

    /// The state of `user`'s PIN in `store` (root only), read without a lock.
    public static func of(_ user: UserName, in store: StateStore, clock: any Clock = SystemClock()) throws -> PINState {
        guard let credential = try store.credential(for: user) else { return PINState(status: nil, mustChange: nil) }
        return PINState(
            status: try PINVerifier(store: store, clock: clock).status(of: user), mustChange: credential.mustChange)
    }

    /// The words after `pin-state` on the helper's reply line: `none`, or the must-change
    /// time (`-` for none) followed by the lockout status as the check's replies give it.
    var words: String {
        guard let status else { return "none" }
        return "\(mustChange.map(String.init) ?? "-") " + HelperReply.encode(status)
    }

    /// Parses `words`; nil if they are not a state.
    init?(words: Substring) {
        if words == "none" {
            self.init(status: nil, mustChange: nil)
            return
        }
        let parts = words.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let status = HelperReply.decode(parts[1]) else { return nil }
        if parts[0] == "-" {
            self.init(status: status, mustChange: nil)
        } else if let since = RecordText.decimal(parts[0], as: Int64.self) {
            self.init(status: status, mustChange: since)
        } else {
            return nil
        }
    }
}
