// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc

/// What a `ProtectedDirectory` read or wrote, by name, with the identity of the file the
/// bytes came from: a later read of the same, unchanged file costs one `fstatat` and no
/// open (docs/DESIGN.md §9). The file is held open while it is remembered, so its inode
/// cannot be freed and its number given to another file (ext4 reuses a freed number at
/// once, and its times move only once per clock tick): a name whose device and inode are
/// still those of the held file names that very file. A record is only ever replaced by
/// rename (a new inode) or, by hand, rewritten in place (new times, maybe size), so size,
/// modification and change times, owner, mode and link count equal too mean the bytes
/// are current; the same fields are what the read's security checks look at.
/// Lives as long as its directory object: one PAM call, one command. Locked, since a
/// store may be used from more than one thread.
final class KnownFiles {
    /// The fields that identify one version of a file.
    struct Identity: Equatable {
        let device: UInt64, inode: UInt64, size: Int64, mode: UInt32, owner: UInt32, links: UInt64
        let modified: timespec, changed: timespec

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            mode = UInt32(info.st_mode)
            owner = UInt32(info.st_uid)
            links = UInt64(info.st_nlink)
            modified = info.st_mtim
            changed = info.st_ctim
        }

        static func == (left: Identity, right: Identity) -> Bool {
            left.device == right.device && left.inode == right.inode && left.size == right.size
                && left.mode == right.mode
                && left.owner == right.owner && left.links == right.links
                && left.modified.tv_sec == right.modified.tv_sec && left.modified.tv_nsec == right.modified.tv_nsec
                && left.changed.tv_sec == right.changed.tv_sec && left.changed.tv_nsec == right.changed.tv_nsec
        }
    }

    private var files: [String: (identity: Identity, bytes: [UInt8], file: FileDescriptor)] = [:]
    private let mutex: UnsafeMutablePointer<pthread_mutex_t> = .allocate(capacity: 1)

    init() { pthread_mutex_init(mutex, nil) }
    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// The bytes last read or written as `name`, if the file in `directory` is still that
    /// one, has none of the mode bits `refused` and at most `limit` bytes; nil otherwise
    /// (then the caller reads it anew, with every check).
    func bytes(of name: String, in directory: Int32, refusing refused: mode_t, limit: Int) -> [UInt8]? {
        guard let known = locked({ files[name] }), known.identity.mode & UInt32(refused) == 0,
            known.bytes.count <= limit
        else { return nil }
        var info = stat()
        guard fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0, Identity(info) == known.identity else {
            return nil
        }
        return known.bytes
    }

    /// Remembers `bytes` as the contents of `file` (held open from now on), which `info`
    /// describes, now named `name`; a file with no link (already replaced) or whose size is
    /// not the bytes' (changed while it was read) is not remembered.
    func remember(_ bytes: [UInt8], of file: FileDescriptor, _ info: stat, as name: String) {
        let usable = info.st_nlink == 1 && Int(info.st_size) == bytes.count
        locked { files[name] = usable ? (Identity(info), bytes, file) : nil }
    }

    /// Forgets `name` (removed or renamed away).
    func forget(_ name: String) { locked { files[name] = nil } }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }
}
