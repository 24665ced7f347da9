// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// The keys derived from a PIN (docs/FORMAT.md §2, docs/DESIGN.md §3):
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
    public static func master(
        pin: SecretBytes, user: UserName, salt: [UInt8], pepper: Pepper,
        parameters: KDFParameters
    ) throws -> SecretBytes {
        try Argon2id.derive(
            password: pin, salt: salt, secret: pepper.bytes,
            associatedData: associatedData(for: user), parameters: parameters)
    }

    /// The 64-byte argon2 output of a TPM-bound record (`BoundKeys`): the same inputs,
    /// twice the output.
    static func boundMaterial(
        pin: SecretBytes, user: UserName, salt: [UInt8], pepper: Pepper,
        parameters: KDFParameters
    ) throws -> SecretBytes {
        try Argon2id.derive(
            password: pin, salt: salt, secret: pepper.bytes, associatedData: associatedData(for: user),
            parameters: parameters, length: BoundKeys.materialLength)
    }

    /// The verifier stored in the credential record.
    public static func verifier(master: SecretBytes) -> SecretBytes {
        expand(master, info: "secureroom/1 verifier", count: verifierLength)
    }

    /// The tag of a wrong guess, so a repeat can be recognised (FORMAT.md §2):
    /// HKDF-SHA256(master of the guess, info "secureroom/1 guess"), first 16 bytes.
    /// It comes from the guess's own argon2 run: a copy of the lockout record and the
    /// pepper reveals the wrong guesses no faster than the credential reveals the PIN.
    public static func guessTag(master: SecretBytes) -> [UInt8] {
        expand(master, info: "secureroom/1 guess", count: guessTagLength).withUnsafeBytes { Array($0) }
    }

    /// The decoy of a user without a PIN, or of an unknown name (`nopin=fail`): its slot
    /// (one of 256) and the salt its argon2 runs use, from
    /// HMAC-SHA256(key = pepper, "secureroom/1 decoy" || 0 || NAME): the first byte and the
    /// next 16. Keyed, so nobody without the pepper can tell which names share a slot.
    public static func decoy(for user: UserName, pepper: Pepper) -> (slot: UInt8, salt: [UInt8]) {
        let mac = SealedKeys.mac(Array("secureroom/1 decoy\0\(user.rawValue)".utf8), key: pepper.bytes)
        return (mac[0], Array(mac[1...Argon2id.saltLength]))
    }

    private static func expand(_ master: SecretBytes, info: String, count: Int) -> SecretBytes {
        SealedKeys.derive(master, info: info).withUnsafeBytes {
            SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0.prefix(count)))
        }
    }
}
