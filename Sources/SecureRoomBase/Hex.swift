// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Lowercase hexadecimal, the encoding of binary fields in SecureRoom records.
public enum Hex {
    /// The digit of each nibble value, for encoders that must not build a String.
    public static let digits = Array("0123456789abcdef".utf8)

    /// Encodes `bytes` as lowercase hex.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes lowercase hex of exactly `count` bytes; nil for anything else.
    public static func decode(_ text: Substring, count: Int) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count == count * 2 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(count)
        var index = 0
        while index < chars.count {
            guard let high = value(chars[index]), let low = value(chars[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    /// The value of one lowercase hex digit, or nil.
    public static func value(_ char: UInt8) -> UInt8? {
        switch char {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return char - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return char - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
