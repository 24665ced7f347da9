// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomSystem
import SecureRoomVault

/// A KeePassXC CSV export (Database > Export > CSV File) read for `import --from
/// keepassxc`: RFC 4180 fields (quoted, "" for a quote, line breaks inside quotes), a
/// header naming the columns. Each row is an entry (`KeePassXCEntry`, which makes the
/// secrets; the group path without KeePassXC's "Root/"). Notes and TOTP seeds are not
/// imported; entries without a password, or whose fields do not match the header, are
/// counted as unreadable. `KeePassXCXML` reads the XML export.
public struct KeePassXCExport {
    /// The columns a file must have.
    static let requiredColumns = ["Group", "Title", "Username", "Password", "URL"]

    /// The file's rows after the header, as column name → field; nil for a row whose
    /// field count is not the header's.
    let rows: [[String: String]?]

    /// Parses `bytes` (the file, UTF-8), refusing what exceeds `limits` (file size, rows,
    /// columns, field and line length).
    public init(_ bytes: [UInt8], limits: ImportLimits = .defaults) throws {
        guard bytes.count <= limits.fileBytes else {
            throw VaultError.invalid("the KeePassXC export is larger than \(limits.fileBytes) bytes")
        }
        var records = try Self.records(bytes, limits: limits)
        guard !records.isEmpty else { throw VaultError.invalid("the KeePassXC export is empty") }
        let header = records.removeFirst()
        let missing = Self.requiredColumns.filter { !header.contains($0) }
        guard missing.isEmpty else {
            throw VaultError.invalid(
                "not a KeePassXC CSV export: no column \(missing.joined(separator: ", ")) in its header")
        }
        rows = records.filter { $0 != [""] }.map { fields in
            fields.count == header.count
                ? Dictionary(zip(header, fields), uniquingKeysWith: { first, _ in first }) : nil
        }
    }

    /// The rows as secrets, in order (`KeePassXCEntry.batch`).
    public func batch() -> ImportBatch {
        KeePassXCEntry.batch(
            rows.map { row in
                row.map {
                    KeePassXCEntry(
                        group: Self.groupPath($0["Group"] ?? ""), title: $0["Title"] ?? "",
                        username: $0["Username"] ?? "", password: $0["Password"] ?? "", url: $0["URL"] ?? "")
                }
            })
    }

    /// KeePassXC's group path without its root group's name: the first component, whatever
    /// the database calls it ("Root" in the application, "Passwords" from keepassxc-cli).
    private static func groupPath(_ group: String) -> String {
        guard let slash = group.firstIndex(of: "/") else { return "" }
        return String(group[group.index(after: slash)...])
    }

    /// RFC 4180 records: fields split on commas and line ends outside quotes. The header
    /// counts as a row for `limits.entries`, plus one.
    private static func records(_ bytes: [UInt8], limits: ImportLimits) throws -> [[String]] {
        var records: [[String]] = []
        var fields: [String] = []
        var field: [UInt8] = []
        defer { field.withUnsafeMutableBytes { sr_explicit_bzero($0.baseAddress, $0.count) } }
        var quoted = false
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0  // a byte-order mark
        var line = 1
        var lineStart = index
        func endField() throws {
            guard fields.count < limits.columns else {
                throw VaultError.invalid("the KeePassXC export, line \(line): more than \(limits.columns) columns")
            }
            fields.append(String(decoding: field, as: UTF8.self))
            field.withUnsafeMutableBytes { sr_explicit_bzero($0.baseAddress, $0.count) }
            field.removeAll(keepingCapacity: true)
        }
        func add(_ byte: UInt8) throws {
            guard field.count < limits.fieldBytes else {
                throw VaultError.invalid(
                    "the KeePassXC export, line \(line): a field longer than \(limits.fieldBytes) bytes")
            }
            field.append(byte)
        }
        func endRecord() throws {
            try endField()
            guard records.count <= limits.entries else {
                throw VaultError.invalid("the KeePassXC export has more than \(limits.entries) entries")
            }
            records.append(fields)
            fields.removeAll()
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte != UInt8(ascii: "\n") && index - lineStart > limits.lineBytes {
                throw VaultError.invalid(
                    "the KeePassXC export, line \(line): longer than \(limits.lineBytes) bytes")
            }
            if quoted {
                if byte != UInt8(ascii: "\"") {
                    try add(byte)
                } else if index < bytes.count && bytes[index] == UInt8(ascii: "\"") {
                    try add(byte)
                    index += 1
                } else {
                    quoted = false
                }
            } else {
                switch byte {
                case UInt8(ascii: "\""): quoted = true
                case UInt8(ascii: ","): try endField()
                case UInt8(ascii: "\r"): break
                case UInt8(ascii: "\n"): try endRecord()
                default: try add(byte)
                }
            }
            if byte == UInt8(ascii: "\n") {
                line += 1
                lineStart = index
            }
        }
        guard !quoted else { throw VaultError.invalid("the KeePassXC export ends inside a quoted field") }
        if !field.isEmpty || !fields.isEmpty { try endRecord() }
        return records
    }
}
