// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// The line format shared by SecureRoom's records (docs/FORMAT.md §1):
///
///     MAGIC/VERSION\n
///     key: value\n
///     ...
///
/// Printable ASCII only, every line ends in `\n`, no blank lines, each key at most
/// once unless declared repeatable, unknown keys rejected. Parsing is strict so a
/// torn or tampered record is reported, never half-read.
struct RecordText {
    /// The values of each key, in file order.
    private(set) var fields: [String: [Substring]] = [:]
    /// Where the record came from, for error messages.
    let path: String

    /// Parses `bytes`, which must start with the line `header`.
    init(
        parsing bytes: [UInt8], header: String, keys: Set<String>, repeatable: Set<String> = [],
        path: String
    ) throws {
        self.path = path
        guard bytes.allSatisfy({ ($0 >= 0x20 && $0 < 0x7f) || $0 == 0x0a }) else {
            throw SecureRoomError.corruptRecord(path: path, reason: "non-printable byte")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.hasSuffix("\n") else {
            throw SecureRoomError.corruptRecord(path: path, reason: "truncated (no final newline)")
        }
        var lines = text.dropLast().split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.first == Substring(header) else {
            throw SecureRoomError.corruptRecord(path: path, reason: "not a \(header) record")
        }
        lines.removeFirst()
        for line in lines {
            guard let separator = Self.firstSeparator(in: line) else {
                throw SecureRoomError.corruptRecord(path: path, reason: "malformed line")
            }
            let key = String(line[..<separator.lowerBound])
            guard keys.contains(key) else {
                throw SecureRoomError.corruptRecord(path: path, reason: "unknown key \(UserName.quoted(key))")
            }
            if fields[key] != nil && !repeatable.contains(key) {
                throw SecureRoomError.corruptRecord(path: path, reason: "duplicate key \(key)")
            }
            fields[key, default: []].append(line[separator.upperBound...])
        }
    }

    /// The first ": " in a line (what splits key from value). The module is built without
    /// the Regex library, whose `firstRange(of:)` this would otherwise be.
    private static func firstSeparator(in line: Substring) -> Range<Substring.Index>? {
        var index = line.startIndex
        while let colon = line[index...].firstIndex(of: ":") {
            let next = line.index(after: colon)
            if next < line.endIndex && line[next] == " " { return colon..<line.index(after: next) }
            index = next
        }
        return nil
    }

    /// The single value of a required key.
    func required(_ key: String) throws -> Substring {
        guard let value = fields[key]?.first else {
            throw SecureRoomError.corruptRecord(path: path, reason: "missing \(key)")
        }
        return value
    }

    /// A required unsigned decimal value within `range`.
    func number<T: FixedWidthInteger>(_ key: String, in range: ClosedRange<T>) throws -> T {
        let text = try required(key)
        guard let value = Self.decimal(text, as: T.self), range.contains(value) else {
            throw SecureRoomError.corruptRecord(path: path, reason: "\(key) out of range")
        }
        return value
    }

    /// A required hex value of exactly `count` bytes.
    func hex(_ key: String, count: Int) throws -> [UInt8] {
        guard let bytes = Hex.decode(try required(key), count: count) else {
            throw SecureRoomError.corruptRecord(path: path, reason: "\(key) is not \(count) bytes of hex")
        }
        return bytes
    }

    /// An optional hex value of exactly `count` bytes (nil when the key is absent).
    func optionalHex(_ key: String, count: Int) throws -> [UInt8]? {
        fields[key] == nil ? nil : try hex(key, count: count)
    }

    /// Strict decimal: digits only, no sign, no leading zeros, fits in `T`.
    static func decimal<T: FixedWidthInteger>(_ text: Substring, as: T.Type) -> T? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            text == "0" || text.first != "0"
        else { return nil }
        return T(text)
    }

    /// Renders a record: the header line, then one `key: value` line per pair.
    static func render(header: String, _ pairs: [(String, String)]) -> [UInt8] {
        var text = header + "\n"
        for (key, value) in pairs { text += "\(key): \(value)\n" }
        return Array(text.utf8)
    }
}
