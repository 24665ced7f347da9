// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// The vault's data key (DEK) and how it is kept (docs/FORMAT.md §7, docs/DESIGN.md §3):
///
///     KEK     = HKDF-SHA256(master, salt = "", info = "secureroom/1 vault-kek", 32)
///     RKEK    = HKDF-SHA256(recovery digits, salt = recovery salt, info = "secureroom/1 recovery-kek", 32)
///     wrapped = ChaCha20-Poly1305(key, random nonce, DEK, ad = "secureroom/1 vault-key user=" || user)
///               stored as nonce (12) || ciphertext (32) || tag (16)
///
/// The KEK comes from the same argon2 output that verifies the PIN: one argon2 run per
/// login both checks the PIN and opens the vault.
public enum VaultKey {
    /// Length of the DEK.
    public static let length = 32
    /// Length of a wrapped DEK.
    public static let wrappedLength = 12 + length + 16

    /// A new random DEK.
    public static func generate() throws -> SecretBytes { try SecretBytes.random(count: length) }

    /// `dek` sealed under the KEK derived from `master` (the argon2 output of the PIN).
    public static func wrap(_ dek: SecretBytes, master: SecretBytes, user: UserName) throws -> [UInt8] {
        try seal(dek, key: SealedKeys.derive(master, info: "secureroom/1 vault-kek"), user: user)
    }

    /// The DEK from `wrapped`, or nil if `master` is not the one it was wrapped with (or
    /// the bytes were altered).
    public static func unwrap(_ wrapped: [UInt8], master: SecretBytes, user: UserName) -> SecretBytes? {
        open(wrapped, key: SealedKeys.derive(master, info: "secureroom/1 vault-kek"), user: user)
    }

    /// `dek` sealed under the key derived from a recovery key.
    public static func wrap(_ dek: SecretBytes, recoveryKey: RecoveryKey, salt: [UInt8], user: UserName) throws
        -> [UInt8]
    {
        try seal(
            dek, key: SealedKeys.derive(recoveryKey.digits, salt: salt, info: "secureroom/1 recovery-kek"), user: user)
    }

    /// The DEK from a recovery-wrapped key, or nil if `recoveryKey` is not the right one.
    public static func unwrap(_ wrapped: [UInt8], recoveryKey: RecoveryKey, salt: [UInt8], user: UserName)
        -> SecretBytes?
    {
        open(
            wrapped, key: SealedKeys.derive(recoveryKey.digits, salt: salt, info: "secureroom/1 recovery-kek"),
            user: user)
    }

    private static func associatedData(_ user: UserName) -> [UInt8] {
        Array("secureroom/1 vault-key user=\(user.rawValue)".utf8)
    }

    private static func seal(_ dek: SecretBytes, key: SecretBytes, user: UserName) throws -> [UInt8] {
        try dek.withUnsafeBytes { try SealedKeys.seal($0, key: key, authenticating: associatedData(user)) }
    }

    private static func open(_ wrapped: [UInt8], key: SecretBytes, user: UserName) -> SecretBytes? {
        guard wrapped.count == wrappedLength,
            let dek = SealedKeys.open(wrapped, key: key, authenticating: associatedData(user)),
            dek.count == length
        else { return nil }
        return dek
    }
}

/// A vault recovery key: 40 random decimal digits (133 bits), shown once as eight groups
/// of five. It wraps the DEK a second time, so the vault survives a forgotten PIN.
public final class RecoveryKey {
    /// Number of digits.
    public static let digitCount = 40
    /// The 40 ASCII digits.
    let digits: SecretBytes

    private init(digits: SecretBytes) { self.digits = digits }

    /// A new random recovery key (uniform digits by rejection sampling).
    public static func generate() throws -> RecoveryKey {
        let digits = SecretBytes(count: digitCount)
        var filled = 0
        while filled < digitCount {
            let random = try SecretBytes.random(count: 64)
            random.withUnsafeBytes { source in
                digits.withUnsafeMutableBytes { target in
                    for byte in source where byte < 250 && filled < digitCount {
                        target[filled] = 0x30 + byte % 10
                        filled += 1
                    }
                }
            }
        }
        return RecoveryKey(digits: digits)
    }

    /// Parses a typed recovery key: 40 ASCII digits; spaces and dashes between them are ignored.
    public convenience init(typed bytes: UnsafeRawBufferPointer) throws {
        let digits = SecretBytes(count: Self.digitCount)
        var count = 0
        try digits.withUnsafeMutableBytes { target in
            for byte in bytes where byte != 0x20 && byte != 0x2d && byte != 0x0a {
                guard byte >= 0x30 && byte <= 0x39, count < Self.digitCount else {
                    throw SecureRoomError.invalidRecoveryKey
                }
                target[count] = byte
                count += 1
            }
        }
        guard count == Self.digitCount else { throw SecureRoomError.invalidRecoveryKey }
        self.init(digits: digits)
    }

    /// The key as shown to the user: eight groups of five digits separated by dashes.
    /// A String by necessity (it is printed once); the caller drops it at once.
    public var displayText: String {
        digits.withUnsafeBytes { bytes in
            stride(from: 0, to: Self.digitCount, by: 5).map { start in
                String(decoding: bytes[start..<start + 5], as: UTF8.self)
            }.joined(separator: "-")
        }
    }
}
