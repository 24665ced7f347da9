// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomSystem
import Glibc
import SecureRoomCore

/// syslog(3) for the tools (LOG_AUTHPRIV, like the module's pam_syslog lines), so that
/// PIN sets, changes and resets leave the same trail as logins. Never given a PIN.
public enum SystemLog {
    /// Opens the log under `identity` (the program name).
    public static func open(identity: StaticString) {
        sr_openlog(
            identity.utf8Start.withMemoryRebound(to: CChar.self, capacity: identity.utf8CodeUnitCount + 1) { $0 },
            LOG_PID, LOG_AUTHPRIV)
    }

    /// Logs a notice (sets, resets, changes).
    public static func notice(_ message: String) { log(LOG_NOTICE, message) }

    /// Logs a warning (failed checks, refusals).
    public static func warning(_ message: String) { log(LOG_WARNING, message) }

    /// Logs an error (state that cannot be used).
    public static func error(_ message: String) { log(LOG_ERR, message) }

    /// Logs `message` at `priority`; where journald receives syslog, as a journal entry of
    /// kind `event` about `user` (`JournalEntry`), else through syslog(3).
    public static func log(_ priority: Int32, _ message: String, event: LogEvent? = nil, user: String? = nil) {
        var entry = JournalEntry(message: message, priority: priority, event: event)
        entry.add("USER", user)
        if !entry.send() { sr_syslog(priority, message) }
    }
}
