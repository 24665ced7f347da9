// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// The keys of a TPM-bound PIN (docs/FORMAT.md §2.1), systemd-cryptenroll's construction
/// on SecureRoom's records. argon2id, as for any PIN, but with a 64-byte output:
///
///     local || auth = argon2id(PIN, salt, secret = pepper, ad = user), 32 + 32 bytes
///     secret        = the TPM's unseal of the record's sealed object, authorized by `auth`
///     master        = HKDF-SHA256(local || secret, info "secureroom/2 bound master")
///     guess tag     = TPM2_HMAC(record's tag key, HKDF-SHA256(local, info "secureroom/2 guess"))[0..<16]
///
/// A copy of the state and the pepper yields `local` and `auth` for each candidate, and
/// nothing to test them against: the secret is only in the chip, which counts every wrong
/// `auth`, and the tags of wrong guesses are keyed inside it.
enum BoundKeys {
    /// argon2's output length for a bound record.
    static let materialLength = 64

    /// Binds a new PIN: a random secret sealed under the material's `auth` half and a new
    /// tag key, both under the chip's storage key. Returns them and the master.
    static func bind(_ material: SecretBytes, on chip: TPMChip) throws -> (TPMBinding, master: SecretBytes) {
        let secret = try SecretBytes.random(count: PinSealer.secretLength)
        let binding = try chip.withConnection { connection in
            try withAuth(material) { auth in
                TPMBinding(
                    sealed: try secret.withUnsafeBytes {
                        try PinSealer(connection: connection).seal(authValue: auth, secret: Array($0))
                    },
                    tagKey: try TagKey(connection: connection).create())
            }
        }
        return (binding, master(material, secret: secret))
    }

    /// The master for a guess, or nil when the TPM refused its `auth` (a wrong PIN, which
    /// the chip counted).
    static func master(_ material: SecretBytes, binding: TPMBinding, connection: TPMConnection) throws -> SecretBytes? {
        var unsealed: [UInt8]
        do {
            unsealed = try withAuth(material) {
                try PinSealer(connection: connection).unseal(binding.sealed, authValue: $0)
            }
        } catch TPMError.wrongAuth {
            return nil
        }
        defer { wipe(&unsealed) }
        return master(material, secret: unsealed.withUnsafeBytes { SecretBytes(copying: $0) })
    }

    /// The tag of a guess, computed by the TPM with `tagKey` (the record's, or the decoy's;
    /// not counted by the chip: the key has no authorization value to guess).
    static func guessTag(_ material: SecretBytes, tagKey: ObjectBlob, connection: TPMConnection) throws -> [UInt8] {
        let input = local(material).withUnsafeBytes {
            SealedKeys.derive(SecretBytes(copying: $0), info: "secureroom/2 guess")
        }
        var tag = try input.withUnsafeBytes { try TagKey(connection: connection).hmac(tagKey, data: Array($0)) }
        defer { wipe(&tag) }
        return Array(tag.prefix(PINKeys.guessTagLength))
    }

    /// The decoy's chip work for a guess (`DecoyTagKey`): its tag, then, unless `seen`
    /// has it, a second HMAC in place of a bound PIN's unseal. Returns the tag, and whether
    /// the stand-in ran (where a bound PIN's wrong guess would be a chip failure).
    static func decoyTag(
        _ material: SecretBytes, key: DecoyTagKey, on chip: TPMChip,
        seen: () throws -> [[UInt8]]
    ) throws -> (tag: [UInt8], standIn: Bool) {
        try chip.withConnection { connection in
            let tag = try guessTag(material, tagKey: key.tagKey, connection: connection)
            guard try !seen().contains(tag) else { return (tag, false) }
            _ = try guessTag(material, tagKey: key.tagKey, connection: connection)
            return (tag, true)
        }
    }

    /// Makes the decoy's tag key on the chip, for the first PIN bound to it.
    static func makeDecoyTagKey(on chip: TPMChip) throws -> DecoyTagKey {
        DecoyTagKey(tagKey: try chip.withConnection { try TagKey(connection: $0).create() })
    }

    /// HKDF-SHA256(local || secret, info "secureroom/2 bound master").
    static func master(_ material: SecretBytes, secret: SecretBytes) -> SecretBytes {
        let input = SecretBytes(count: 64)
        input.withUnsafeMutableBytes { out in
            material.withUnsafeBytes { out.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(32))) }
            secret.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: out[32...]).copyMemory(from: $0) }
        }
        return SealedKeys.derive(input, info: "secureroom/2 bound master")
    }

    /// The material's first half.
    private static func local(_ material: SecretBytes) -> SecretBytes {
        material.withUnsafeBytes { SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0.prefix(32))) }
    }

    /// Runs `body` with the material's second half as an array (what ESAPI takes), wiped
    /// after. Trailing zero bytes are dropped: the TPM drops them from an object's
    /// authorization value, and tpm2-tss before 4.0.2 does not in `Esys_TR_SetAuth`
    /// (swtpm accepts either form with these sessions; a chip need not).
    private static func withAuth<T>(_ material: SecretBytes, _ body: ([UInt8]) throws -> T) rethrows -> T {
        var auth = material.withUnsafeBytes { Array($0.suffix(32)) }
        while auth.count > 1, auth.last == 0 { auth.removeLast() }
        defer { wipe(&auth) }
        return try body(auth)
    }

    private static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
    }
}
