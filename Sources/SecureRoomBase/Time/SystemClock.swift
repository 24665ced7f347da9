// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc

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
        return Instant(
            wallSeconds: Int64(wall.tv_sec), bootID: Self.bootID,
            bootNanoseconds: UInt64(boot.tv_sec) * 1_000_000_000 + UInt64(boot.tv_nsec))
    }

    /// This boot's id, read once: no process outlives its boot.
    private static let bootID = readBootID()

    private static func readBootID() -> String {
        guard
            let file = try? FileDescriptor.open(
                "/proc/sys/kernel/random/boot_id", in: nil,
                flags: O_RDONLY, displayPath: "boot_id"),
            let bytes = try? file.readAll(limit: 64)
        else { return "" }
        let hex = bytes.filter { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: "\n") }
        return hex.count == 32 ? String(decoding: hex, as: UTF8.self) : ""
    }
}
