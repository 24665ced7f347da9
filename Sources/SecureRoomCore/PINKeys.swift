import Crypto

/// The keys derived from a PIN (docs/FORMAT.md §2, DESIGN §3):
///
///     master   = argon2id(PIN, salt, secret = pepper, ad = "secureroom/1 user=" || user)
///     verifier = HKDF-SHA256(master, salt = "", info = "secureroom/1 verifier", 32)
///
/// One argon2 run per check; later keys (the vault's KEK) come from the same master.
public enum PINKeys {
    /// Length of the stored verifier.
    public static let verifierLength = 32
    /// Length of a wrong-guess tag in the lockout record.
    public static let guessTagLength = 16

    /// The argon2 associated data for `user`.
    static func associatedData(for user: UserName) -> [UInt8] {
        Array("secureroom/1 user=\(user.rawValue)".utf8)
    }

    /// Runs argon2id for `pin` with the record's salt and parameters.
    public static func master(pin: SecretBytes, user: UserName, salt: [UInt8], pepper: Pepper,
                              parameters: KDFParameters) throws -> SecretBytes {
        try Argon2id.derive(password: pin, salt: salt, secret: pepper.bytes,
                            associatedData: associatedData(for: user), parameters: parameters)
    }

    /// The verifier stored in the credential record.
    public static func verifier(master: SecretBytes) -> SecretBytes {
        expand(master, info: "secureroom/1 verifier", count: verifierLength)
    }

    /// A keyed tag of a wrong guess, so a repeat can be recognised without argon2:
    /// HMAC-SHA256(key = pepper, "secureroom/1 guess" || 0 || user || 0 || salt || PIN), first 16 bytes.
    /// Without the pepper it reveals nothing; with it, the record alone already falls to search.
    public static func guessTag(pin: SecretBytes, user: UserName, salt: [UInt8], pepper: Pepper) -> [UInt8] {
        let key = pepper.bytes.withUnsafeBytes { SymmetricKey(data: $0) }
        var mac = HMAC<SHA256>(key: key)
        mac.update(data: Array("secureroom/1 guess\0\(user.rawValue)\0".utf8))
        mac.update(data: salt)
        pin.withUnsafeBytes { mac.update(data: $0) }
        let tag = Array(Array(mac.finalize()).prefix(guessTagLength))
        // The inner SHA-256 state still buffers the PIN, and swift-crypto 4.5.2 does not wipe
        // a hash state when it frees it (its zeroize() clears 8 bytes, the size of a metatype,
        // not the state). One more block completes the pending one, which BoringSSL then
        // zeroes; the tag was taken before. Found by Tests/reliability/memory.sh (freecheck).
        mac.update(data: [UInt8](repeating: 0, count: 64))
        return tag
    }

    private static func expand(_ master: SecretBytes, info: String, count: Int) -> SecretBytes {
        SealedKeys.derive(master, info: info).withUnsafeBytes { SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
    }
}
