// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomSystem
import Glibc

/// Reading the config file (`/etc/security/secureroom.conf` or `conf=`).
public enum ConfigurationFile {
    /// Largest config file accepted.
    public static let maximumSize = 65_536

    /// The file's bytes, or nil if it does not exist. Refuses a file that is not a regular
    /// file owned by root and writable only by root: whoever can write it could weaken the
    /// lockout or point `dir=` elsewhere.
    public static func read(_ path: String) throws -> [UInt8]? {
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(path, in: nil, flags: O_RDONLY | O_NONBLOCK | O_NOCTTY, displayPath: path)
        } catch SecureRoomError.system(_, _, let code) where code == ENOENT {
            return nil
        }
        let info = try file.status()
        guard sr_s_isreg(info.st_mode) != 0 else {
            throw SecureRoomError.insecure(path: path, reason: "not a regular file")
        }
        guard info.st_uid == 0, info.st_mode & 0o022 == 0 else {
            throw SecureRoomError.insecure(path: path, reason: "must be owned by root and writable only by root")
        }
        return try file.readAll(limit: maximumSize)
    }
}
