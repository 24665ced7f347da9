// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSQLite

/// A failed SQLite call: its extended result code and SQLite's own message.
struct SQLiteError: Error {
    /// The extended result code (sqlite3_extended_errcode).
    let code: Int32
    /// sqlite3_errmsg's text, or sqlite3_errstr's when there is no connection.
    let message: String

    /// The primary result code (SQLITE_BUSY, SQLITE_CORRUPT, ...), without the extension.
    var primaryCode: Int32 { code & 0xff }

    /// Whether the file is not a database or is damaged (SQLITE_CORRUPT, SQLITE_NOTADB).
    var isDamage: Bool { primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB }
}
