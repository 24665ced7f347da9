// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc
import SecureRoomCore
import SecureRoomVault

/// A pass(1) password store read for `import --from pass`: every `NAME.gpg` under the
/// store (its `.git` and dot-files aside), decrypted by the user's own gpg as `pass show`
/// does, becomes the secret titled `NAME` (the path inside the store, without `.gpg`):
/// the whole file as its value (the password on the first line, whatever follows it), the
/// title as its label, and the attribute `pass-entry` = NAME, which Secret Service clients
/// can look it up by.
struct PasswordStore {
    /// The store's directory.
    let directory: String

    /// The store at `path`, or at $PASSWORD_STORE_DIR, or ~/.password-store, as pass finds it.
    init(path: String?) throws {
        if let path {
            directory = path
        } else if let configured = getenv("PASSWORD_STORE_DIR").map({ String(cString: $0) }), !configured.isEmpty {
            directory = configured
        } else if let home = getenv("HOME").map({ String(cString: $0) }), home.hasPrefix("/") {
            directory = home + "/.password-store"
        } else {
            throw VaultError.invalid("no password store given, and neither PASSWORD_STORE_DIR nor HOME is set")
        }
        var info = stat()
        guard stat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw VaultError.invalid("\(directory) is not a password store (a directory)")
        }
    }

    /// The entries' names, sorted, and the ones that cannot be read: a symbolic link
    /// (never followed), a file or directory that cannot be examined or opened.
    func names() -> (names: [String], unreadable: [(name: String, reason: String)]) {
        var found: [String] = []
        var unreadable: [(name: String, reason: String)] = []
        func walk(_ relative: String) {
            let path = relative.isEmpty ? directory : directory + "/" + relative
            guard let handle = opendir(path) else {
                unreadable.append((relative.isEmpty ? "." : relative, String(cString: strerror(errno))))
                return
            }
            defer { closedir(handle) }
            while let entry = readdir(handle) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) {
                    String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
                }
                guard !name.hasPrefix(".") else { continue }
                let child = relative.isEmpty ? name : relative + "/" + name
                var info = stat()
                guard lstat(directory + "/" + child, &info) == 0 else {
                    unreadable.append((child, String(cString: strerror(errno))))
                    continue
                }
                switch info.st_mode & S_IFMT {
                case S_IFDIR: walk(child)
                case S_IFLNK where name.hasSuffix(".gpg"): unreadable.append((child, "a symbolic link, not followed"))
                case S_IFREG where name.hasSuffix(".gpg") && name.count > 4: found.append(String(child.dropLast(4)))
                default: break
                }
            }
        }
        walk("")
        return (found.sorted(), unreadable)
    }

    /// Entry `name` decrypted, as a secret; throws `VaultError.invalid` with the reason if
    /// gpg could not decrypt it.
    func read(_ name: String) throws -> VaultStore.NewSecret {
        let run = try ProgramOutput(
            ["gpg", "--quiet", "--batch", "--yes", "--decrypt", directory + "/" + name + ".gpg"],
            limit: VaultStore.maximumValueLength)
        guard run.status == 0 else {
            throw VaultError.invalid("gpg could not decrypt it (exit \(run.status)): \(run.errorLine)")
        }
        return VaultStore.NewSecret(title: name, value: run.output, label: name, attributes: ["pass-entry": name])
    }
}
