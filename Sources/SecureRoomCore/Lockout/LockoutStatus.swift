// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Where a user's tally stands.
public enum LockoutStatus: Equatable, Sendable {
    /// Attempts are allowed; `untilDelay` is the next longer delay, if one comes before the cap.
    case open(failures: Int, untilDelay: NextDelay?, untilDisabled: Int)
    /// Attempts are refused for `seconds` more.
    case delayed(seconds: Int64, failures: Int)
    /// The guess budget is spent: only a reset (or a success by other means) helps.
    case disabled(failures: Int)

    /// Consecutive failures counted.
    public var failures: Int {
        switch self {
        case let .open(failures, _, _), let .delayed(_, failures), let .disabled(failures): return failures
        }
    }

    /// Whether an attempt may be made now.
    public var allowsAttempt: Bool {
        if case .open = self { return true }
        return false
    }
}

extension LockoutStatus: CustomStringConvertible {
    /// A compact description for log lines.
    public var description: String {
        switch self {
        case let .open(failures, _, left): return "\(failures) consecutive failures, \(left) before disabled"
        case let .delayed(seconds, failures): return "\(failures) consecutive failures, delayed \(seconds) s"
        case let .disabled(failures): return "disabled after \(failures) consecutive failures"
        }
    }
}
