// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc

/// A user name that is safe to use as a record file name.
///
/// Accepted: 1 to 32 characters from `[A-Za-z0-9_.-]`, not starting with `.` or `-`,
/// optionally ending in `$` (Samba machine accounts). This is the portable set of
/// POSIX plus Debian's `useradd` conventions; it excludes `/`, `..`, NUL, spaces and
/// control characters, so a name can never leave the records directory.
public struct UserName: Hashable, Sendable, CustomStringConvertible {
    /// The longest accepted name (the utmp limit, UT_NAMESIZE).
    public static let maximumLength = 32

    /// The validated name.
    public let rawValue: String

    /// Validates `rawValue`; throws `SecureRoomError.invalidUserName` otherwise.
    public init(_ rawValue: String) throws {
        let bytes = Array(rawValue.utf8)
        guard let first = bytes.first, bytes.count <= Self.maximumLength,
            first != UInt8(ascii: "."), first != UInt8(ascii: "-")
        else { throw SecureRoomError.invalidUserName(rawValue) }
        for (index, byte) in bytes.enumerated() {
            let allowed =
                Self.isPortable(byte)
                || (byte == UInt8(ascii: "$") && index == bytes.count - 1 && index > 0)
            guard allowed else { throw SecureRoomError.invalidUserName(rawValue) }
        }
        self.rawValue = rawValue
    }

    /// The name itself.
    public var description: String { rawValue }

    /// The account's uid from the passwd database (getpwnam_r), or nil if there is no
    /// such account.
    public func accountID() -> uid_t? { account()?.uid }

    /// The account's uid and primary gid, or nil if there is no such account.
    public func account() -> (uid: uid_t, gid: gid_t)? {
        Self.passwdEntry { getpwnam_r(rawValue, $0, $1, $2, $3) }.map { ($0.uid, $0.gid) }
    }

    /// The name of the account with `uid` (getpwuid_r), or nil if there is none.
    public static func accountName(of uid: uid_t) -> String? {
        passwdEntry { getpwuid_r(uid, $0, $1, $2, $3) }?.name
    }

    /// Runs a reentrant passwd lookup with its buffers; the entry's uid and name, or nil.
    private static func passwdEntry(
        _ lookup: (
            UnsafeMutablePointer<passwd>, UnsafeMutablePointer<CChar>, Int,
            UnsafeMutablePointer<UnsafeMutablePointer<passwd>?>
        ) -> Int32
    ) -> (uid: uid_t, gid: gid_t, name: String)? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        let code = buffer.withUnsafeMutableBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return ERANGE }
            return lookup(&entry, base, bytes.count, &result)
        }
        guard code == 0, result != nil, let name = entry.pw_name else { return nil }
        return (entry.pw_uid, entry.pw_gid, String(cString: name))
    }

    private static func isPortable(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    /// A printable, bounded rendering of an untrusted name for logs and messages:
    /// at most 64 characters, non-printable bytes as `\xNN`.
    public static func quoted(_ untrusted: String) -> String {
        var out = "\""
        for byte in untrusted.utf8.prefix(64) {
            if byte >= 0x20 && byte < 0x7f && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                out.append(Character(Unicode.Scalar(byte)))
            } else {
                out += "\\x" + Hex.encode([byte])
            }
        }
        if untrusted.utf8.count > 64 { out += "…" }
        return out + "\""
    }
}
