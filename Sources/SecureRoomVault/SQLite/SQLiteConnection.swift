// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSQLite

/// One connection to an existing SQLite file, through SQLite's C API (Debian's libsqlite3),
/// which is all the vault needs of a database library: a few statements over two tables,
/// in transactions. The file is never created here (VaultLocation makes it, 0600) and never
/// opened through a symbolic link.
final class SQLiteConnection {
    private let handle: OpaquePointer

    /// Opens `path` for reading and writing; a busy database is waited for up to
    /// `busyTimeoutMilliseconds` by each statement before it fails with SQLITE_BUSY.
    init(path: String, busyTimeoutMilliseconds: Int32) throws(SQLiteError) {
        var opened: OpaquePointer?
        let status = sqlite3_open_v2(
            path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close_v2(opened)
            throw SQLiteError(code: status, message: message)
        }
        handle = opened
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
    }

    deinit { sqlite3_close_v2(handle) }

    /// The error of the last failed call on this connection (`status` if SQLite has none).
    func error(_ status: Int32) -> SQLiteError {
        let code = sqlite3_extended_errcode(handle)
        return SQLiteError(code: code == SQLITE_OK ? status : code, message: String(cString: sqlite3_errmsg(handle)))
    }

    /// A prepared statement for one SQL statement.
    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else { throw error(status) }
        return SQLiteStatement(statement, of: self)
    }

    /// Runs one statement with blob `arguments` to its end; returns the rows it changed.
    @discardableResult
    func run(_ sql: String, _ arguments: [[UInt8]] = []) throws(SQLiteError) -> Int {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        while try statement.step() {}
        return Int(sqlite3_changes(handle))
    }

    /// Runs a query with blob `arguments`, calling `row` for each row in order.
    func forEachRow(_ sql: String, _ arguments: [[UInt8]] = [], _ row: (SQLiteStatement) throws -> Void) throws {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        while try statement.step() { try row(statement) }
    }

    /// The first column of the first row of a query, as bytes; nil without a row.
    func firstBlob(_ sql: String, _ arguments: [[UInt8]] = []) throws(SQLiteError) -> [UInt8]? {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        return try statement.step() ? statement.blob(at: 0) : nil
    }

    /// The first column of the first row of a query, as an integer; nil without a row.
    func firstInteger(_ sql: String) throws(SQLiteError) -> Int64? {
        let statement = try prepare(sql)
        return try statement.step() ? statement.integer(at: 0) : nil
    }

    /// Runs `body` in one transaction: IMMEDIATE (the write lock taken at once, so two
    /// writers never both read then collide) or DEFERRED (a consistent read). Committed if
    /// `body` returns, rolled back if it throws.
    func transaction<T>(immediate: Bool, _ body: () throws -> T) throws -> T {
        try run(immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")
        do {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            // Nothing to add if the rollback fails too: SQLite then rolls back on close.
            _ = try? run("ROLLBACK")
            throw error
        }
    }
}
