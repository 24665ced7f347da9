// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc

/// A set of PINs refused at set/change time.
///
/// The built-in list is Apple's 274 four-digit PINs and the 2,740-PIN data-driven list
/// of Markert et al. (IEEE S&P 2020), 2,756 PINs (2,793 refused with the constant steps):
/// with the default `deny` an attacker who
/// tries the most common allowed PINs first opens under 1% of accounts, at the cost of
/// refusing 27.9% of the space (docs/SECURITY.md §1.1). `blocklist=PATH` loads another
/// list (one PIN per line, `#` comments).
public struct Blocklist: Sendable {
    private let entries: Set<[UInt8]>
    /// Where the list came from: "builtin", "none" or a path.
    public let source: String

    /// Number of PINs in the list.
    public var count: Int { entries.count }

    /// The built-in list (applies to 4-digit PINs).
    public static let builtin = Blocklist(
        entries: Set(
            (BuiltinBlocklist.ios + " " + BuiltinBlocklist.dataDriven).split(separator: " ").map { Array($0.utf8) }),
        source: "builtin")
    /// No list.
    public static let none = Blocklist(entries: [], source: "none")

    private init(entries: Set<[UInt8]>, source: String) {
        self.entries = entries
        self.source = source
    }

    /// Parses a list file's text: one PIN per line, blank lines and `#` comments ignored.
    /// Throws for a line that is not ASCII digits.
    public init(parsing bytes: [UInt8], source: String) throws {
        var entries = Set<[UInt8]>()
        for (number, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated()
        {
            let trimmed = line.filter {
                $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") && $0 != UInt8(ascii: "\r")
            }
            if trimmed.isEmpty || trimmed.first == UInt8(ascii: "#") { continue }
            guard trimmed.count <= PINFormat.digitRange.upperBound,
                trimmed.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            else {
                throw SecureRoomError.invalidConfiguration("blocklist \(source) line \(number + 1) is not a PIN")
            }
            entries.insert(Array(trimmed))
        }
        self.init(entries: entries, source: source)
    }

    /// Loads `blocklist=` as configured: "builtin", "none", or an absolute path to a list.
    public static func load(_ setting: String) throws -> Blocklist {
        switch setting {
        case "builtin": return .builtin
        case "none": return .none
        default:
            guard setting.hasPrefix("/") else {
                throw SecureRoomError.invalidConfiguration("blocklist must be builtin, none or an absolute path")
            }
            let file = try FileDescriptor.open(
                setting, in: nil, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK,
                displayPath: setting)
            return try Blocklist(parsing: try file.readAll(limit: 1 << 20), source: setting)
        }
    }

    /// Whether `pin` is on the list. Compares in place: the PIN is never copied into an
    /// array that would outlive this call unwiped.
    public func contains(_ pin: UnsafeRawBufferPointer) -> Bool {
        entries.contains { $0.elementsEqual(pin) }
    }
}
