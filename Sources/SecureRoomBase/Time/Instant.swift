// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// A point in time as the lockout needs it: wall-clock seconds (shown to people,
/// kept across reboots) plus the boot it was taken in and the time since that boot
/// (CLOCK_BOOTTIME, which setting the clock cannot move).
public struct Instant: Equatable, Sendable {
    /// Seconds since the Unix epoch (CLOCK_REALTIME).
    public var wallSeconds: Int64
    /// The kernel's boot id (32 lowercase hex digits), empty if unknown.
    public var bootID: String
    /// Nanoseconds since boot, including suspend (CLOCK_BOOTTIME).
    public var bootNanoseconds: UInt64

    /// Creates an instant from its parts.
    public init(wallSeconds: Int64, bootID: String, bootNanoseconds: UInt64) {
        self.wallSeconds = wallSeconds
        self.bootID = bootID
        self.bootNanoseconds = bootNanoseconds
    }

    /// Whole seconds from `earlier` to `self`, never negative.
    ///
    /// Within one boot this uses CLOCK_BOOTTIME, so moving the wall clock (either way)
    /// changes nothing. Across a reboot only the wall clock is left; a clock that went
    /// backwards then counts as no time having passed — it never unlocks early.
    public func seconds(since earlier: Instant) -> Int64 {
        if !bootID.isEmpty && bootID == earlier.bootID {
            return bootNanoseconds >= earlier.bootNanoseconds
                ? Int64((bootNanoseconds - earlier.bootNanoseconds) / 1_000_000_000) : 0
        }
        return max(0, wallSeconds - earlier.wallSeconds)
    }
}
