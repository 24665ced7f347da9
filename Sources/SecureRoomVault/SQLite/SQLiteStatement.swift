// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSQLite

/// One prepared statement of a `SQLiteConnection`, finalized when released. Values are
/// bound by position; columns are read by index from the current row.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private let connection: SQLiteConnection

    init(_ handle: OpaquePointer, of connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds `values` to the parameters ?1, ?2, ... as blobs; SQLite copies them.
    func bind(_ values: [[UInt8]]) throws(SQLiteError) {
        for (offset, value) in values.enumerated() {
            let status = value.withUnsafeBytes {
                // A zero-length blob still needs a non-null pointer to be a blob, not NULL.
                sqlite3_bind_blob(
                    handle, Int32(offset + 1), $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                    Int32($0.count), sr_sqlite_transient())
            }
            guard status == SQLITE_OK else { throw connection.error(status) }
        }
    }

    /// Runs the statement to its next row: true with a row to read, false when done.
    func step() throws(SQLiteError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let status: throw connection.error(status)
        }
    }

    /// Column `index` of the current row as bytes (empty for NULL or a zero-length value).
    func blob(at index: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// Column `index` of the current row as an integer.
    func integer(at index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }
}
