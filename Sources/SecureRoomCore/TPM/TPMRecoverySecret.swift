// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// The TPM recovery secret (`secureroom tpm harden`, docs/SECURITY.md §1.2): 32 random
/// bytes that become the chip's owner and lockout authorizations. It is shown once, as
/// `hex:` and 64 hex digits (the form tpm2-tools take with `-p`/`-P`), and stored nowhere on
/// the machine; with it an administrator sets a PIN's counter back (`secureroom reset
/// --tpm-secret`), frees the indices of PINs gone, or resets the chip's dictionary-attack
/// counter; without it nobody can, root included.
public struct TPMRecoverySecret {
    /// The authorization value.
    let bytes: SecretBytes

    /// Its length.
    static let length = 32

    /// A new random secret. Its last byte is not zero: the TPM drops trailing zero bytes
    /// from an authorization value, and the secret must be typed back as shown.
    public static func generate() throws -> TPMRecoverySecret {
        let bytes = try SecretBytes.random(count: length)
        bytes.withUnsafeMutableBytes { if $0[length - 1] == 0 { $0[length - 1] = 1 } }
        return TPMRecoverySecret(bytes: bytes)
    }

    /// Parses what an administrator typed (`HiddenLine`): `hex:` and 64 lowercase hex
    /// digits, as shown, the prefix optional, blanks around ignored. Nil for anything else. Decoded in place,
    /// without a copy outside wiped buffers.
    public init?(typed: SecretBytes) {
        let blank: Set<UInt8> = [0x20, 0x09, 0x0a, 0x0d]
        let secret = SecretBytes(count: Self.length)
        let decoded = typed.withUnsafeBytes { text -> Bool in
            var digits = text[...]
            while let first = digits.first, blank.contains(first) { digits = digits.dropFirst() }
            while let last = digits.last, blank.contains(last) { digits = digits.dropLast() }
            if digits.starts(with: Array("hex:".utf8)) { digits = digits.dropFirst(4) }
            guard digits.count == 2 * Self.length else { return false }
            return secret.withUnsafeMutableBytes { out in
                for index in 0..<Self.length {
                    let high = digits[digits.startIndex + 2 * index]
                    let low = digits[digits.startIndex + 2 * index + 1]
                    guard let high = Hex.value(high), let low = Hex.value(low) else { return false }
                    out[index] = high << 4 | low
                }
                return true
            }
        }
        guard decoded else { return nil }
        bytes = secret
    }

    private init(bytes: SecretBytes) { self.bytes = bytes }

    /// `hex:` and the 64 hex digits, to show once.
    public var text: String { "hex:" + bytes.withUnsafeBytes { Hex.encode($0) } }

    /// Runs `body` with the bytes as an array (what ESAPI takes), wiped after.
    func withAuth<T>(_ body: ([UInt8]) throws -> T) rethrows -> T {
        var auth = bytes.withUnsafeBytes { Array($0) }
        defer { auth.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        return try body(auth)
    }
}
