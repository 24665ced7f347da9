// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomSystem
import Glibc

/// A process that holds a `flock` on a file, as /proc/locks names it. An administrator's
/// command ends one that has held a record lock past the patience (docs/DESIGN.md §4,
/// "A stalled holder"): a user can stop, freeze or starve their own su or helper while it
/// holds another user's lock, and only root's commands may take the lock from it.
struct LockHolder {
    /// Its pid, in this process's pid namespace.
    let pid: pid_t

    /// The processes that /proc/locks says hold a flock on the file `info` describes
    /// (processes waiting for it are not listed); empty when none, or without /proc.
    static func holders(of info: stat) -> [LockHolder] {
        guard
            let locks = try? FileDescriptor.open("/proc/locks", in: nil, flags: O_RDONLY, displayPath: "/proc/locks")
                .readAll(limit: 1 << 20)
        else { return [] }
        let device = String(sr_dev_major(info.st_dev), radix: 16) + ":" + String(sr_dev_minor(info.st_dev), radix: 16)
        // "1: FLOCK  ADVISORY  WRITE 1234 08:01:123456 0 EOF"; the device is %02x:%02x. A
        // waiter's line reads "1: -> FLOCK ...", so its second field is not FLOCK.
        return String(decoding: locks, as: UTF8.self).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count >= 6, fields[1] == "FLOCK", let pid = Int32(fields[4]) else { return nil }
            let parts = fields[5].split(separator: ":")
            guard parts.count == 3, UInt64(parts[2]) == UInt64(info.st_ino),
                parts[0...1].map({ String(Int($0, radix: 16) ?? -1, radix: 16) }).joined(separator: ":") == device
            else { return nil }
            return LockHolder(pid: pid)
        }
    }

    /// "pid 1234 (su)".
    var description: String {
        let comm =
            (try? FileDescriptor.open("/proc/\(pid)/comm", in: nil, flags: O_RDONLY, displayPath: "comm")
            .readAll(limit: 64))
            .map { String(decoding: $0.filter { $0 != 0x0a }, as: UTF8.self) }
        return "pid \(pid)" + (comm.map { " (\($0))" } ?? "")
    }

    /// Ends the process with SIGKILL, which a stopped, frozen (cgroup v2) or starved process
    /// cannot hold off: through a pidfd, once the process it names is seen to have the file
    /// `info` describes open, so a pid reused since /proc/locks was read is never signalled;
    /// first given an ordinary CPU share, so that one held back under SCHED_IDLE dies at
    /// once. Whether the signal was sent.
    func end(holding info: stat) -> Bool {
        let process = sr_pidfd_open(pid)
        guard process >= 0 else { return false }
        defer { _ = close(process) }
        guard hasOpen(info) else { return false }
        _ = sr_sched_ordinary(pid)
        return sr_pidfd_send_signal(process, SIGKILL) == 0
    }

    /// Whether one of the process's descriptors is the file `info` describes.
    private func hasOpen(_ info: stat) -> Bool {
        let directory = "/proc/\(pid)/fd"
        guard let listing = opendir(directory) else { return false }
        defer { closedir(listing) }
        while let entry = readdir(listing) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            var target = stat()
            guard name.first != ".", stat(directory + "/" + name, &target) == 0 else { continue }
            if target.st_dev == info.st_dev && target.st_ino == info.st_ino { return true }
        }
        return false
    }
}
