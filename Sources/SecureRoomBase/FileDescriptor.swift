// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomSystem
import Glibc

/// An owned file descriptor, closed when the last reference goes away.
///
/// A thin typed wrapper over the system calls the core needs, in the manner of
/// swift-system: every call throws `SecureRoomError.system` with the errno.
public final class FileDescriptor {
    /// The raw descriptor number.
    public let rawValue: Int32
    /// The path this descriptor was opened as, for error messages.
    public let path: String

    init(rawValue: Int32, path: String) {
        self.rawValue = rawValue
        self.path = path
    }

    deinit { _ = Glibc.close(rawValue) }

    /// Opens `name` relative to `directory` (or the current directory when nil).
    public static func open(
        _ name: String, in directory: FileDescriptor?, flags: Int32,
        mode: mode_t = 0o600, displayPath: String
    ) throws -> FileDescriptor {
        let fd = retryingOnInterrupt {
            sr_openat(directory?.rawValue ?? AT_FDCWD, name, flags | O_CLOEXEC, mode)
        }
        guard fd >= 0 else { throw SecureRoomError.system(operation: "open", path: displayPath, errno: errno) }
        return FileDescriptor(rawValue: fd, path: displayPath)
    }

    /// `fstat(2)`.
    public func status() throws -> stat {
        var info = stat()
        guard fstat(rawValue, &info) == 0 else { throw failure("stat") }
        return info
    }

    /// Reads the whole file, refusing files larger than `limit` bytes.
    public func readAll(limit: Int) throws -> [UInt8] {
        try Self.readAll(
            rawValue, limit: limit,
            failure: { failure("read") },
            tooLarge: { SecureRoomError.corruptRecord(path: path, reason: "larger than \(limit) bytes") })
    }

    /// Reads descriptor `descriptor` (not owned: standard input, say) to its end, in
    /// chunks that are wiped afterwards; more than `limit` bytes throws `tooLarge()`,
    /// a read error `failure()` (errno is still set).
    public static func readAll(_ descriptor: Int32, limit: Int, failure: () -> Error, tooLarge: () -> Error) throws
        -> [UInt8]
    {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer { chunk.withUnsafeMutableBytes { sr_explicit_bzero($0.baseAddress, $0.count) } }
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                retryingOnInterrupt { read(descriptor, buffer.baseAddress, buffer.count) }
            }
            if count < 0 { throw failure() }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > limit { throw tooLarge() }
        }
    }

    /// Writes every byte, retrying short writes.
    public func writeAll(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try Self.writeAll(rawValue, $0, failure: { failure("write") }) }
    }

    /// Writes every byte of `bytes` to `descriptor` (not owned: standard output, say),
    /// retrying short writes and EINTR; an error throws `failure()` (errno is still set).
    public static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, failure: () -> Error) throws {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = retryingOnInterrupt { write(descriptor, base + offset, bytes.count - offset) }
            guard written > 0 else { throw failure() }
            offset += written
        }
    }

    /// `fsync(2)`.
    public func synchronize() throws {
        guard retryingOnInterrupt({ fsync(rawValue) }) == 0 else { throw failure("fsync") }
    }

    /// `flock(2)` with LOCK_EX, waiting at most `seconds`: a holder that never lets go (a
    /// process stopped with SIGSTOP) must not hang logins and administrators forever.
    /// `notice`, if given, is told once, after a second, who holds the lock.
    public func lockExclusively(waitingAtMost seconds: Int, notice: ((String) -> Void)? = nil) throws {
        let deadline = Deadline(millisecondsFromNow: Int64(seconds) * 1000)
        var noticeAt: Deadline? = notice == nil ? nil : Deadline(millisecondsFromNow: 1000)
        var pause: UInt32 = 1_000
        while flock(rawValue, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else { throw failure("flock") }
            guard !deadline.hasPassed else {
                throw SecureRoomError.busy(path: path, seconds: seconds, holder: lockHolder() ?? "an unknown process")
            }
            if let due = noticeAt, due.hasPassed, let notice {
                notice(
                    "waiting for \(path), locked by \(lockHolder() ?? "an unknown process") (giving up after "
                        + "\(seconds) s)"
                )
                noticeAt = nil
            }
            usleep(pause)
            pause = min(pause * 2, 50_000)
        }
    }

    /// Who holds a `flock` on this file, from /proc/locks: "pid 1234 (su)"; nil if that
    /// cannot be told (no /proc, the holder just let go).
    func lockHolder() -> String? {
        guard let info = try? status(),
            let locks = try? Self.open("/proc/locks", in: nil, flags: O_RDONLY, displayPath: "/proc/locks").readAll(
                limit: 1 << 20)
        else { return nil }
        let device = String(sr_dev_major(info.st_dev), radix: 16) + ":" + String(sr_dev_minor(info.st_dev), radix: 16)
        // "1: FLOCK  ADVISORY  WRITE 1234 08:01:123456 0 EOF"; the device is %02x:%02x.
        for line in String(decoding: locks, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 6, fields[1] == "FLOCK", let pid = Int32(fields[4]) else { continue }
            let parts = fields[5].split(separator: ":")
            guard parts.count == 3, UInt64(parts[2]) == UInt64(info.st_ino),
                parts[0...1].map({ String(Int($0, radix: 16) ?? -1, radix: 16) }).joined(separator: ":") == device
            else { continue }
            let comm =
                (try? Self.open("/proc/\(pid)/comm", in: nil, flags: O_RDONLY, displayPath: "comm").readAll(limit: 64))
                .map { String(decoding: $0.filter { $0 != 0x0a }, as: UTF8.self) }
            return "pid \(pid)" + (comm.map { " (\($0))" } ?? "")
        }
        return nil
    }

    private func failure(_ operation: String) -> SecureRoomError {
        .system(operation: operation, path: path, errno: errno)
    }
}

/// Repeats a system call while it fails with EINTR.
@inline(__always)
func retryingOnInterrupt<T: FixedWidthInteger>(_ call: () -> T) -> T {
    while true {
        let result = call()
        if result >= 0 || errno != EINTR { return result }
    }
}
