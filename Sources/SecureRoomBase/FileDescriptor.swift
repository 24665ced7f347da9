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
    /// process stopped, frozen or starved by the user who started it) must not hang logins
    /// and administrators. Then, with `endingStalledHolders` (an administrator's command),
    /// the holders are ended (`LockHolder.end`), it is told which, and the lock waited for
    /// `seconds` more; otherwise, and if it is still held then, `busy`. `notice`, if
    /// given, is told once, after a second, who holds the lock.
    public func lockExclusively(
        waitingAtMost seconds: Int, endingStalledHolders: ((String) -> Void)? = nil,
        notice: ((String) -> Void)? = nil
    ) throws {
        let plan = endingStalledHolders == nil ? "giving up after" : "ending it after"
        if try waitForLock(seconds: seconds, plan: plan, notice: notice) { return }
        if let report = endingStalledHolders {
            let info = try status()
            let ended = LockHolder.holders(of: info).filter { $0.pid != getpid() && $0.end(holding: info) }
            if !ended.isEmpty {
                report(
                    "ended \(ended.map(\.description).joined(separator: ", ")), which held \(path) for \(seconds) s")
                if try waitForLock(seconds: seconds, plan: "", notice: nil) { return }
            }
        }
        throw SecureRoomError.busy(path: path, seconds: seconds, holder: lockHolder() ?? "an unknown process")
    }

    /// Tries `flock(LOCK_EX | LOCK_NB)` until it succeeds (true) or `seconds` pass (false);
    /// `notice` is told after a second who holds it, and `plan` ("giving up after").
    private func waitForLock(seconds: Int, plan: String, notice: ((String) -> Void)?) throws -> Bool {
        let deadline = Deadline(millisecondsFromNow: Int64(seconds) * 1000)
        var noticeAt: Deadline? = notice == nil ? nil : Deadline(millisecondsFromNow: 1000)
        var pause: UInt32 = 1_000
        while flock(rawValue, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else { throw failure("flock") }
            guard !deadline.hasPassed else { return false }
            if let due = noticeAt, due.hasPassed, let notice {
                notice(
                    "waiting for \(path), locked by \(lockHolder() ?? "an unknown process") (\(plan) \(seconds) s)"
                )
                noticeAt = nil
            }
            usleep(pause)
            pause = min(pause * 2, 50_000)
        }
        return true
    }

    /// Who holds a `flock` on this file: "pid 1234 (su)"; nil if that cannot be told (no
    /// /proc, the holder just let go).
    func lockHolder() -> String? {
        guard let info = try? status() else { return nil }
        return LockHolder.holders(of: info).first?.description
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
