// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc

/// The end of a bounded wait, on CLOCK_MONOTONIC: the lock patience, the helper's reply
/// and exit deadlines. Interruptions and partial progress do not extend it.
public struct Deadline {
    private let end: Int64

    /// A deadline `milliseconds` from now.
    public init(millisecondsFromNow milliseconds: Int64) { end = Self.now() + milliseconds }

    /// The deadline at `microseconds` on CLOCK_MONOTONIC (sd-bus's timeouts).
    public init(monotonicMicroseconds microseconds: UInt64) { end = Int64(clamping: microseconds / 1000) }

    /// Milliseconds left (0 once passed), clamped for poll(2).
    public var remainingMilliseconds: Int32 { Int32(clamping: max(0, end - Self.now())) }

    /// Whether the deadline has passed.
    public var hasPassed: Bool { Self.now() >= end }

    private static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}
