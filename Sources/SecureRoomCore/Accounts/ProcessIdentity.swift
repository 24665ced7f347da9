// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc

/// A process as /proc knows it: its pid and its start time (field 22 of /proc/PID/stat,
/// in clock ticks since boot), so that a pid reused by a later process is not taken for
/// the one that held a session (docs/FORMAT.md §8).
public struct ProcessIdentity: Equatable, Sendable {
    /// The process id.
    public let pid: Int32
    /// When it started, in clock ticks since boot.
    public let start: UInt64

    /// A process from its parts.
    public init(pid: Int32, start: UInt64) {
        self.pid = pid
        self.start = start
    }

    /// This process; nil without /proc.
    public static func current() -> ProcessIdentity? { of(getpid()) }

    /// The process `pid` now, or nil if there is none (or no /proc). A zombie (state Z or X:
    /// it has exited, only its parent has not collected it yet) is none: a `su` killed with
    /// SIGKILL is one until its parent reaps it, and its session is over from that moment.
    public static func of(_ pid: Int32) -> ProcessIdentity? {
        guard pid > 0,
            let stat = try? FileDescriptor.open("/proc/\(pid)/stat", in: nil, flags: O_RDONLY, displayPath: "stat")
                .readAll(limit: 4096),
            let close = stat.lastIndex(of: UInt8(ascii: ")"))
        else { return nil }
        // After "pid (comm)" come the fields from 3 (state) on: starttime is field 22.
        let fields = stat[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count > 19, let state = fields.first?.first,
            state != UInt8(ascii: "Z"), state != UInt8(ascii: "X"),
            let start = UInt64(String(decoding: fields[fields.startIndex + 19], as: UTF8.self))
        else { return nil }
        return ProcessIdentity(pid: pid, start: start)
    }

    /// Whether this very process still runs.
    public var isAlive: Bool { Self.of(pid) == self }
}
