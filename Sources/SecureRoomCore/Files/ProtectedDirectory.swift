// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomSystem
import Glibc

/// A directory SecureRoom trusts with secrets, opened without following symlinks.
///
/// Opening walks the path from `/` one component at a time with `O_NOFOLLOW`, and
/// refuses (`SecureRoomError.insecure`) any component that is not a directory owned by
/// root and writable only by root (sticky world-writable ancestors such as /tmp are
/// allowed, as OpenSSH's StrictModes does). Files inside are reached with `openat`
/// relative to the checked descriptor, so nothing can be swapped in between.
public final class ProtectedDirectory {
    /// The directory's descriptor.
    public let descriptor: FileDescriptor
    /// The path it was opened as, for messages.
    public var path: String { descriptor.path }

    /// Owner required of every component and file (root, except in tests).
    let owner: uid_t
    /// What was read or written here, for reads of unchanged files without an open.
    private let known = KnownFiles()

    private init(descriptor: FileDescriptor, owner: uid_t) {
        self.descriptor = descriptor
        self.owner = owner
    }

    /// Opens `path` (absolute), checking every component. With `create`, the last
    /// component is created (mode 0700) if missing. Throws `stateMissing` if absent.
    public static func open(_ path: String, create: Bool = false, owner: uid_t = 0) throws -> ProtectedDirectory {
        guard path.hasPrefix("/") else { throw SecureRoomError.invalidConfiguration("\(path) is not an absolute path") }
        let components = path.split(separator: "/")
        var current = try FileDescriptor.open("/", in: nil, flags: O_RDONLY | O_DIRECTORY, displayPath: "/")
        try check(current, isAncestor: !components.isEmpty, owner: owner)
        var walked = ""
        for (index, component) in components.enumerated() {
            walked += "/" + component
            guard component != "..", component != "." else {
                throw SecureRoomError.insecure(path: path, reason: "path contains . or ..")
            }
            let isLast = index == components.count - 1
            let next: FileDescriptor
            do {
                next = try FileDescriptor.open(
                    String(component), in: current,
                    flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW, displayPath: walked)
            } catch SecureRoomError.system(_, _, let code) where code == ENOENT {
                guard isLast && create else { throw SecureRoomError.stateMissing(path: walked) }
                guard mkdirat(current.rawValue, String(component), 0o700) == 0 || errno == EEXIST else {
                    throw SecureRoomError.system(operation: "mkdir", path: walked, errno: errno)
                }
                next = try FileDescriptor.open(
                    String(component), in: current,
                    flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW, displayPath: walked)
                try claimGroup(of: next, owner: owner)
            } catch SecureRoomError.system(_, _, let code) where code == ELOOP || code == ENOTDIR {
                throw SecureRoomError.insecure(path: walked, reason: "is a symlink or not a directory")
            }
            try check(next, isAncestor: !isLast, owner: owner)
            current = next
        }
        return ProtectedDirectory(descriptor: current, owner: owner)
    }

    /// Opens (or with `create`, makes) the subdirectory `name`, with the same checks.
    public func subdirectory(_ name: String, create: Bool = false) throws -> ProtectedDirectory {
        let display = path + "/" + name
        let made = create && mkdirat(descriptor.rawValue, name, 0o700) == 0
        if create && !made && errno != EEXIST {
            throw SecureRoomError.system(operation: "mkdir", path: display, errno: errno)
        }
        do {
            let fd = try FileDescriptor.open(
                name, in: descriptor, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW,
                displayPath: display)
            if made { try Self.claimGroup(of: fd, owner: owner) }
            try Self.check(fd, isAncestor: false, owner: owner)
            return ProtectedDirectory(descriptor: fd, owner: owner)
        } catch SecureRoomError.system(_, _, let code) where code == ENOENT {
            throw SecureRoomError.stateMissing(path: display)
        } catch SecureRoomError.system(_, _, let code) where code == ELOOP || code == ENOTDIR {
            throw SecureRoomError.insecure(path: display, reason: "is a symlink or not a directory")
        }
    }

    /// Reads the regular file `name`, or returns nil if it does not exist.
    ///
    /// Refuses symlinks, non-regular files (FIFOs are opened non-blocking, so they cannot
    /// hang a login), hard-linked files, files not owned by the owner, files any other
    /// user can write (or, unless `othersMayRead`, read), and files larger than `limit`.
    /// A file read or written before through this object and unchanged since (`KnownFiles`)
    /// is not opened again: its checks passed on the very same fields.
    public func read(_ name: String, limit: Int, othersMayRead: Bool = false) throws -> [UInt8]? {
        let refused: mode_t = othersMayRead ? 0o022 : 0o077
        if let bytes = known.bytes(of: name, in: descriptor.rawValue, refusing: refused, limit: limit) { return bytes }
        let display = path + "/" + name
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(
                name, in: descriptor, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY,
                displayPath: display)
        } catch SecureRoomError.system(_, _, let code) where code == ENOENT {
            return nil
        } catch SecureRoomError.system(_, _, let code) where code == ELOOP {
            throw SecureRoomError.insecure(path: display, reason: "is a symlink")
        }
        let info = try file.status()
        guard sr_s_isreg(info.st_mode) != 0 else {
            throw SecureRoomError.insecure(path: display, reason: "not a regular file")
        }
        guard info.st_uid == owner else { throw SecureRoomError.insecure(path: display, reason: "not owned by root") }
        guard info.st_mode & refused == 0 else {
            throw SecureRoomError.insecure(
                path: display, reason: "accessible by group or others (mode \(Self.octal(info.st_mode)))")
        }
        // 0 links: the file was replaced by rename after we opened it — a whole, older
        // record (lock-free readers race with writers). 2 or more: a hard link planted
        // from elsewhere, refused.
        guard info.st_nlink <= 1 else {
            throw SecureRoomError.insecure(path: display, reason: "has \(info.st_nlink) hard links")
        }
        guard info.st_size <= limit else {
            throw SecureRoomError.corruptRecord(path: display, reason: "larger than \(limit) bytes")
        }
        let bytes = try file.readAll(limit: limit)
        // What fstat said before the read is what the bytes are, unless a writer changed
        // the file in place meanwhile: then the times differ next time, and it is read anew.
        known.remember(bytes, of: file, info, as: name)
        return bytes
    }

    /// Replaces `name` atomically: a new 0600 temp file (created with that mode, so there is
    /// no window), written, fsync'd, renamed over `name`, then the directory fsync'd.
    /// A crash at any point leaves either the old file or the new one.
    ///
    /// The temp file has one fixed name per record, `.NAME.tmp`, and a leftover from a
    /// killed writer is removed first, so crashes (or a caller's RLIMIT_FSIZE) can leave at
    /// most one stray file per record. Callers serialise writers of a record (the per-user
    /// lock); two unserialised writers make one of them fail, never mix.
    /// `mode` is 0600 for every record but what users' own tools read (0644: `sessions=`).
    public func writeAtomically(_ name: String, contents: [UInt8], mode: mode_t = 0o600) throws {
        let temporary = ".\(name).tmp"
        if unlinkat(descriptor.rawValue, temporary, 0) != 0 && errno != ENOENT {
            throw SecureRoomError.system(operation: "unlink", path: path + "/" + temporary, errno: errno)
        }
        let file = try FileDescriptor.open(
            temporary, in: descriptor,
            flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: mode,
            displayPath: path + "/" + temporary)
        do {
            try Self.claimGroup(of: file, owner: owner)
            // The umask may have taken bits away from `mode`, never added any.
            if mode != 0o600 && fchmod(file.rawValue, mode) != 0 {
                throw SecureRoomError.system(operation: "chmod", path: file.path, errno: errno)
            }
            try file.writeAll(contents)
            try file.synchronize()
            known.forget(name)
            guard renameat(descriptor.rawValue, temporary, descriptor.rawValue, name) == 0 else {
                throw SecureRoomError.system(operation: "rename", path: path + "/" + name, errno: errno)
            }
        } catch {
            unlinkat(descriptor.rawValue, temporary, 0)
            throw error
        }
        // The new file, as it now is (the rename changed its ctime): read back without an open.
        if let info = try? file.status() { known.remember(contents, of: file, info, as: name) }
        try descriptor.synchronize()
    }

    /// Creates `name`, 0600, with `contents` unless it exists (then nil), durably, and
    /// returns it open under an exclusive `flock` taken before the name appeared, so that no
    /// other process ever finds it unlocked. It is written under a name of this process's
    /// own, renamed without replacing (renameat2 RENAME_NOREPLACE), and the directory
    /// fsynced: two processes racing for one name need no lock, one of them gets nil.
    public func createLocked(_ name: String, contents: [UInt8]) throws -> FileDescriptor? {
        let temporary = ".\(name).\(getpid()).tmp"
        if unlinkat(descriptor.rawValue, temporary, 0) != 0 && errno != ENOENT {
            throw SecureRoomError.system(operation: "unlink", path: path + "/" + temporary, errno: errno)
        }
        let file = try FileDescriptor.open(
            temporary, in: descriptor, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600,
            displayPath: path + "/" + name)
        do {
            try Self.claimGroup(of: file, owner: owner)
            try file.writeAll(contents)
            try file.synchronize()
            guard flock(file.rawValue, LOCK_EX | LOCK_NB) == 0 else {
                throw SecureRoomError.system(operation: "flock", path: file.path, errno: errno)
            }
            known.forget(name)
            guard sr_renameat_noreplace(descriptor.rawValue, temporary, name) == 0 else {
                guard errno == EEXIST else {
                    throw SecureRoomError.system(operation: "rename", path: path + "/" + name, errno: errno)
                }
                unlinkat(descriptor.rawValue, temporary, 0)
                return nil
            }
        } catch {
            unlinkat(descriptor.rawValue, temporary, 0)
            throw error
        }
        try descriptor.synchronize()
        return file
    }

    /// Renames `name` to `newName` in this directory (refusing to replace an existing
    /// `newName`), then fsyncs the directory. False if `name` does not exist.
    public func rename(_ name: String, to newName: String) throws -> Bool {
        known.forget(name)
        guard sr_renameat_noreplace(descriptor.rawValue, name, newName) == 0 else {
            if errno == ENOENT { return false }
            throw SecureRoomError.system(operation: "rename", path: path + "/" + name, errno: errno)
        }
        try descriptor.synchronize()
        return true
    }

    /// Removes `name` if it exists, then fsyncs the directory.
    public func remove(_ name: String) throws {
        known.forget(name)
        if unlinkat(descriptor.rawValue, name, 0) != 0 {
            if errno == ENOENT { return }
            throw SecureRoomError.system(operation: "unlink", path: path + "/" + name, errno: errno)
        }
        try descriptor.synchronize()
    }

    /// How long `lock` waits for another holder, in seconds (docs/DESIGN.md §4, "A stalled
    /// holder"). A check holds a lock for a few file writes, never across argon2 or the
    /// TPM; a holder past this is stalled (stopped, frozen or starved by the user who
    /// started it), and a check then goes on without the PIN.
    public static let lockPatience = 5

    /// Takes an exclusive `flock` on the lock file `name` (created 0600 if missing) and
    /// returns the open descriptor; the lock lasts until it is released or the process dies,
    /// so a killed process never leaves a stale lock behind. Gives up (`busy`) after
    /// `lockPatience` seconds, or, with `endingStalledHolders` (root's commands), ends the
    /// holders then and tells it which (`FileDescriptor.lockExclusively`); `notice` hears
    /// who holds it after a second of waiting.
    public func lock(
        _ name: String, endingStalledHolders: ((String) -> Void)? = nil, notice: ((String) -> Void)? = nil
    ) throws -> FileDescriptor {
        let file = try FileDescriptor.open(
            name, in: descriptor, flags: O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK,
            mode: 0o600, displayPath: path + "/" + name)
        let info = try file.status()
        guard sr_s_isreg(info.st_mode) != 0, info.st_uid == owner, info.st_nlink == 1 else {
            throw SecureRoomError.insecure(path: file.path, reason: "lock file is not a private regular file")
        }
        if info.st_gid != 0 { try Self.claimGroup(of: file, owner: owner) }
        try file.lockExclusively(
            waitingAtMost: Self.lockPatience, endingStalledHolders: endingStalledHolders, notice: notice)
        return file
    }

    /// What `tryLock` found.
    public enum TryLock {
        /// The lock was free and is now this descriptor's, until it is closed.
        case held(FileDescriptor)
        /// Another open file (a live process, or this one) holds it.
        case busy
        /// There is no such file.
        case missing
    }

    /// Takes an exclusive `flock` on the existing private file `name` without waiting.
    public func tryLock(_ name: String) throws -> TryLock {
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(
                name, in: descriptor, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK, mode: 0,
                displayPath: path + "/" + name)
        } catch SecureRoomError.system(_, _, let code) where code == ENOENT {
            return .missing
        }
        let info = try file.status()
        guard sr_s_isreg(info.st_mode) != 0, info.st_uid == owner, info.st_mode & 0o077 == 0 else {
            throw SecureRoomError.insecure(path: file.path, reason: "not a private regular file")
        }
        if flock(file.rawValue, LOCK_EX | LOCK_NB) == 0 { return .held(file) }
        guard errno == EWOULDBLOCK else {
            throw SecureRoomError.system(operation: "flock", path: file.path, errno: errno)
        }
        return .busy
    }

    /// Names of the dot files in the directory that start with `prefix` (which starts with
    /// "."), sorted.
    public func hiddenEntries(prefix: String) throws -> [String] {
        try names().filter { $0.hasPrefix(prefix) }
    }

    /// Makes the directory readable and searchable by everyone (0755), for records users'
    /// own tools read; it stays writable by its owner only.
    public func allowReading() throws {
        let info = try descriptor.status()
        guard info.st_mode & 0o7777 != 0o755 else { return }
        guard fchmod(descriptor.rawValue, 0o755) == 0 else {
            throw SecureRoomError.system(operation: "chmod", path: path, errno: errno)
        }
    }

    /// Names of the entries in the directory (excluding dot files).
    public func entries() throws -> [String] { try names().filter { !$0.hasPrefix(".") } }

    /// Names of every entry in the directory but "." and "..", sorted.
    private func names() throws -> [String] {
        let copy = dup(descriptor.rawValue)
        guard copy >= 0, let stream = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            throw SecureRoomError.system(operation: "opendir", path: path, errno: errno)
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    private static func check(_ directory: FileDescriptor, isAncestor: Bool, owner: uid_t) throws {
        let info = try directory.status()
        guard sr_s_isdir(info.st_mode) != 0 else {
            throw SecureRoomError.insecure(path: directory.path, reason: "not a directory")
        }
        let stickyShared = isAncestor && info.st_mode & S_ISVTX != 0
        guard info.st_uid == 0 || (!isAncestor && info.st_uid == owner) else {
            throw SecureRoomError.insecure(path: directory.path, reason: "not owned by root")
        }
        guard info.st_mode & 0o022 == 0 || stickyShared else {
            throw SecureRoomError.insecure(
                path: directory.path,
                reason: "writable by group or others (mode \(octal(info.st_mode)))")
        }
    }

    /// Gives a file or directory this process created (or a lock file it reuses) the
    /// group root when its owner is root. A setuid host (su, sudo) creates files with the
    /// invoking user's group, its effective gid; the modes keep such a group out today, but
    /// no record of root's may carry a user's group (docs/DESIGN.md §9). Records are
    /// rewritten whole, so one written before this gets the root group at its next write.
    private static func claimGroup(of file: FileDescriptor, owner: uid_t) throws {
        guard owner == 0 else { return }
        guard fchown(file.rawValue, uid_t.max, 0) == 0 else {
            throw SecureRoomError.system(operation: "chown", path: file.path, errno: errno)
        }
    }

    static func octal(_ mode: mode_t) -> String {
        let digits = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
