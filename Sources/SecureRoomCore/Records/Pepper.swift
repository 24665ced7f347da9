// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// The pepper: 32 random bytes, argon2's secret input, kept in a root-only file apart
/// from the records (docs/FORMAT.md §2). A copy of the records without it is useless
/// to an offline attacker; see docs/SECURITY.md for what it does not protect against.
public final class Pepper {
    /// The file's first line.
    static let header = "SECUREROOM-PEPPER/1"
    /// Length of the pepper in bytes.
    public static let length = 32

    /// The secret bytes.
    public let bytes: SecretBytes

    /// Wraps existing secret bytes.
    public init(bytes: SecretBytes) { self.bytes = bytes }

    /// A new random pepper.
    public static func generate() throws -> Pepper {
        Pepper(bytes: try SecretBytes.random(count: length))
    }

    /// Parses a pepper file.
    public convenience init(parsing bytes: [UInt8], path: String) throws {
        let text = try RecordText(parsing: bytes, header: Self.header, keys: ["pepper"], path: path)
        var raw = try text.hex("pepper", count: Self.length)
        defer { for index in raw.indices { raw[index] = 0 } }
        self.init(bytes: raw.withUnsafeBytes { SecretBytes(copying: $0) })
    }

    /// The pepper file's bytes. The caller should write and drop them promptly.
    func serialized() -> [UInt8] {
        bytes.withUnsafeBytes { RecordText.render(header: Self.header, [("pepper", Hex.encode($0))]) }
    }
}
