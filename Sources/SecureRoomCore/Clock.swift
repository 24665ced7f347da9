import Glibc

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

/// A source of `Instant`s; tests inject their own.
public protocol Clock: Sendable {
    /// The current instant.
    func now() -> Instant
}

/// The system clock: CLOCK_REALTIME, CLOCK_BOOTTIME and /proc/sys/kernel/random/boot_id.
public struct SystemClock: Clock {
    /// Creates the system clock.
    public init() {}

    /// The current instant.
    public func now() -> Instant {
        var wall = timespec()
        var boot = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        clock_gettime(CLOCK_BOOTTIME, &boot)
        return Instant(wallSeconds: Int64(wall.tv_sec), bootID: Self.bootID,
                       bootNanoseconds: UInt64(boot.tv_sec) * 1_000_000_000 + UInt64(boot.tv_nsec))
    }

    /// This boot's id, read once: no process outlives its boot.
    private static let bootID = readBootID()

    private static func readBootID() -> String {
        guard let file = try? FileDescriptor.open("/proc/sys/kernel/random/boot_id", in: nil,
                                                  flags: O_RDONLY, displayPath: "boot_id"),
              let bytes = try? file.readAll(limit: 64)
        else { return "" }
        let hex = bytes.filter { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: "\n") }
        return hex.count == 32 ? String(decoding: hex, as: UTF8.self) : ""
    }
}

/// The end of a bounded wait, on CLOCK_MONOTONIC: the lock patience, the helper's reply
/// and exit deadlines. Interruptions and partial progress do not extend it.
public struct Deadline {
    private let end: Int64

    /// A deadline `milliseconds` from now.
    public init(millisecondsFromNow milliseconds: Int64) { end = Self.now() + milliseconds }

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
