// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc
import SecureRoomBase

/// Where a user's vault lives and the checks it must pass: the XDG data directory,
/// `$XDG_DATA_HOME/secureroom/vault.sqlite` (default `~/.local/share/secureroom/`),
/// a directory 0700 and a file 0600, both owned by the user, neither a symlink.
public enum VaultLocation {
    /// The default vault file of the user running this process.
    public static func defaultPath() throws -> String {
        if let data = getenv("XDG_DATA_HOME").map({ String(cString: $0) }), data.hasPrefix("/") {
            return data + "/secureroom/vault.sqlite"
        }
        if let home = getenv("HOME").map({ String(cString: $0) }), home.hasPrefix("/") {
            return home + "/.local/share/secureroom/vault.sqlite"
        }
        throw VaultError.invalid("cannot find your data directory: set HOME or XDG_DATA_HOME, or give --file")
    }

    /// Creates the vault's directory (0700, and missing parents 0700) if needed.
    public static func prepareDirectory(for path: String) throws {
        var prefix = ""
        for component in directory(of: path).split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw VaultError.database(path: prefix, message: String(cString: strerror(errno)))
            }
        }
    }

    /// Creates an empty vault file, mode 0600, unless it exists (O_EXCL, O_NOFOLLOW).
    static func createFile(_ path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
        } else if errno != EEXIST {
            throw VaultError.database(path: path, message: String(cString: strerror(errno)))
        }
    }

    /// Refuses a vault file (or its directory) that is a symlink, not the user's, or open
    /// to others; `mustExist` turns a missing file into `missing`.
    static func checkFile(_ path: String, mustExist: Bool) throws {
        var info = stat()
        let parent = directory(of: path)
        guard lstat(parent, &info) == 0 else {
            if mustExist { throw VaultError.missing(path: path) }
            throw VaultError.database(path: parent, message: String(cString: strerror(errno)))
        }
        guard info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid(), info.st_mode & 0o022 == 0 else {
            throw VaultError.insecure(
                path: parent, reason: "the vault's directory must be yours and writable by you only (mode 0700)")
        }
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT && !mustExist { return }
            if errno == ENOENT { throw VaultError.missing(path: path) }
            throw VaultError.database(path: path, message: String(cString: strerror(errno)))
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw VaultError.insecure(path: path, reason: "not a regular file (a symlink?)")
        }
        guard info.st_uid == geteuid() else { throw VaultError.insecure(path: path, reason: "not owned by you") }
        guard info.st_mode & 0o077 == 0 else {
            throw VaultError.insecure(path: path, reason: "readable or writable by others (run: chmod 600 \(path))")
        }
    }

    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
