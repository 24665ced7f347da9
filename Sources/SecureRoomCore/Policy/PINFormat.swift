// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// The shape of a PIN: exactly `digits` ASCII digits. Unicode digits ("١٢٣٤",
/// "１２３４"), spaces, signs and anything longer or shorter are not PINs.
public struct PINFormat: Equatable, Sendable {
    /// Accepted values for the configured number of digits.
    public static let digitRange = 4...12
    /// Longest input read before it is refused unread (bounds memory for hostile input).
    public static let maximumInputLength = 256

    /// The required number of digits.
    public let digits: Int

    /// The default: four digits.
    public static let fourDigits = PINFormat(validDigits: 4)

    private init(validDigits: Int) { digits = validDigits }

    /// A format of `digits` digits; throws for a count outside `digitRange`.
    public init(digits: Int) throws {
        guard Self.digitRange.contains(digits) else {
            throw SecureRoomError.invalidConfiguration("digits=\(digits) outside \(Self.digitRange)")
        }
        self.digits = digits
    }

    /// Copies `input` (up to its first NUL) into a `SecretBytes` if it is a PIN of this
    /// format; throws `malformedPIN` otherwise. Never copies more than it checks.
    public func pin(from input: UnsafeRawBufferPointer) throws -> SecretBytes {
        let length = input.firstIndex(of: 0) ?? input.count
        guard length == digits,
            input.prefix(length).allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { throw SecureRoomError.malformedPIN(digits: digits) }
        return SecretBytes(copying: UnsafeRawBufferPointer(rebasing: input.prefix(length)))
    }

    /// `pin(from:)` for a NUL-terminated C string, reading at most `maximumInputLength` bytes.
    public func pin(fromCString pointer: UnsafePointer<CChar>) throws -> SecretBytes {
        var length = 0
        while length <= Self.maximumInputLength && pointer[length] != 0 { length += 1 }
        guard length <= Self.maximumInputLength else { throw SecureRoomError.malformedPIN(digits: digits) }
        return try pin(from: UnsafeRawBufferPointer(start: pointer, count: length))
    }
}
