// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomSystem
import Glibc

/// One log line as a journal entry: the syslog line's text, priority, facility (authpriv)
/// and identifier, so that journald forwards it as that very line and fail2ban's
/// `journalmatch` (pam/fail2ban/secureroom.conf) still takes it, plus fields to select
/// on: MESSAGE_ID (`LogEvent`) and `SECUREROOM_USER`, `_SERVICE`, `_TTY`, `_RHOST`,
/// `_RUSER` (docs/DESIGN.md §13). Never given a PIN.
public struct JournalEntry {
    /// The fields in order.
    public private(set) var fields: [(name: String, value: String)]

    /// An entry for `message` at `priority` from this program (named as syslog(3) would
    /// name it: the tools' and the helper's `SystemLog.open` identity, else the program's
    /// short name; a PAM host that called openlog(3) itself, as cron does, names its
    /// pam_syslog lines otherwise), of kind `event`.
    public init(message: String, priority: Int32, event: LogEvent?) {
        let identifier = sr_log_identity().map { String(cString: $0) } ?? "secureroom"
        fields = [
            ("MESSAGE", message), ("PRIORITY", String(priority & LOG_PRIMASK)),
            ("SYSLOG_FACILITY", String(LOG_AUTHPRIV >> 3)), ("SYSLOG_IDENTIFIER", identifier),
            ("SYSLOG_PID", String(getpid())),
        ]
        if let event { fields.append(("MESSAGE_ID", event.rawValue)) }
    }

    /// Adds `SECUREROOM_<name>` unless `value` is nil or empty.
    public mutating func add(_ name: String, _ value: String?) {
        guard let value, !value.isEmpty else { return }
        fields.append(("SECUREROOM_" + name, value))
    }

    /// Sends the entry (`SystemJournal.send`); false where the caller should write the
    /// syslog line instead.
    public func send() -> Bool { SystemJournal.send(fields) }
}
