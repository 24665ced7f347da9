// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomSystem
import Glibc

/// systemd-journald's native protocol (systemd.io/JOURNAL_NATIVE_PROTOCOL): one datagram
/// of `FIELD=value` lines per entry, so that a log line also carries fields a journal
/// query can select on (MESSAGE_ID, the user, the service; docs/DESIGN.md §13).
///
/// An entry is sent only where the syslog socket is journald's own (/dev/log is, or is
/// bound to, /run/systemd/journal/dev-log): there the native entry lands where the syslog
/// line would have, once, and journald forwards it to a syslog daemon exactly as it would
/// the line. Anywhere else (no journald, a syslog daemon of its own on /dev/log, a test's
/// private socket) `send` returns false and the caller writes the syslog line.
public enum SystemJournal {
    /// journald's native socket.
    static let socketPath = "/run/systemd/journal/socket"
    /// journald's syslog socket, which /dev/log points to where journald receives syslog.
    static let syslogSocketPath = "/run/systemd/journal/dev-log"

    /// Sends one entry made of `fields` (names: upper-case letters, digits and `_`, not
    /// starting with `_`); true if journald took it.
    public static func send(_ fields: [(name: String, value: String)]) -> Bool {
        guard receivesSyslog() else { return false }
        let entry = encode(fields)
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        let sent = entry.withUnsafeBytes { sr_unix_sendto(socket, $0.baseAddress, $0.count, socketPath) }
        return sent == entry.count
    }

    /// Whether /dev/log is journald's syslog socket (the same inode, through a symbolic
    /// link or a bind mount).
    static func receivesSyslog() -> Bool {
        var devLog = stat()
        var journald = stat()
        return stat("/dev/log", &devLog) == 0 && stat(syslogSocketPath, &journald) == 0
            && devLog.st_dev == journald.st_dev && devLog.st_ino == journald.st_ino
    }

    /// The datagram: `NAME=value\n` per field, or, for a value with a newline,
    /// `NAME\n`, its length as 64-bit little-endian, the value and `\n`.
    static func encode(_ fields: [(name: String, value: String)]) -> [UInt8] {
        var entry: [UInt8] = []
        for (name, value) in fields {
            entry += Array(name.utf8)
            let bytes = Array(value.utf8)
            if bytes.contains(UInt8(ascii: "\n")) {
                entry.append(UInt8(ascii: "\n"))
                withUnsafeBytes(of: UInt64(bytes.count).littleEndian) { entry += Array($0) }
            } else {
                entry.append(UInt8(ascii: "="))
            }
            entry += bytes
            entry.append(UInt8(ascii: "\n"))
        }
        return entry
    }
}
