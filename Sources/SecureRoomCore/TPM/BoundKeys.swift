// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// The keys of a TPM-bound PIN (docs/FORMAT.md §2.1), systemd-cryptenroll's construction
/// on SecureRoom's records. argon2id, as for any PIN, but with a 64-byte output:
///
///     local || auth = argon2id(PIN, salt, secret = pepper, ad = user), 32 + 32 bytes
///     secret        = the TPM's unseal of the record's sealed object, authorized by `auth`:
///                     version 3, through PolicySecret with the PIN's own counter (an NV
///                     index whose authorization value is `auth`); version 2, PolicyAuthValue
///     master        = HKDF-SHA256(local || secret, info "secureroom/2 bound master")
///     guess tag     = version 2 only: TPM2_HMAC(record's tag key,
///                     HKDF-SHA256(local, info "secureroom/2 guess"))[0..<16]
///
/// A copy of the state and the pepper yields `local` and `auth` for each candidate, and
/// nothing to test them against: the secret is only in the chip, which counts every wrong
/// `auth` (version 3: on the PIN's own counter, which stops at its limit).
enum BoundKeys {
    /// argon2's output length for a bound record.
    static let materialLength = 64

    /// Binds a new PIN to its own counter (version 3): a PIN index at `claim`'s handle (or
    /// the next free one `ledger` moves it to) whose authorization value is the material's
    /// `auth` half and which refuses every PIN after `limit` wrong ones, and a random secret
    /// sealed behind it under the chip's storage key, sealed also to the current values of
    /// `pcrs` when there are any. Returns them and the master. Called only by
    /// `PINAdministration.bindToChip`, which holds the claim; on a failure after the
    /// define, the caller's `ChipLedger.abandon` frees the index.
    static func bind(
        _ material: SecretBytes, limit: UInt32, pcrs: [Int], on chip: TPMChip, claim: ChipLedger.Claim,
        ledger: ChipLedger
    ) throws -> (PinIndexBinding, master: SecretBytes) {
        let secret = try SecretBytes.random(count: PinSealer.secretLength)
        let binding = try chip.withConnection { connection in
            // The TCG storage key at 0x81000001, as systemd-tpm2-setup persists it, so that a
            // check loads it instead of deriving it (an ECC primary: milliseconds on swtpm,
            // tens on a chip). Best effort: a chip whose owner authorization is another's
            // refuses, and the transient key (the same key) serves.
            try? OwnerHierarchy(connection: connection).persistStorageKey()
            return try withAuth(material) { auth in
                let boot = pcrs.isEmpty ? nil : try PCRPolicy.current(pcrs, connection)
                let counter = try defineCounter(authValue: auth, limit: limit, connection, claim: claim, ledger: ledger)
                let sealed = try secret.withUnsafeBytes { raw -> ObjectBlob in
                    var copy = Array(raw)
                    defer { wipe(&copy) }
                    return try PinSealer(connection: connection).seal(copy, behind: counter, pcrs: boot)
                }
                return PinIndexBinding(index: counter.index, indexName: try counter.name(), sealed: sealed, pcrs: boot)
            }
        }
        return (binding, master(material, secret: secret))
    }

    /// A PIN index at `claim`'s handle (a handle already defined, by anyone, is skipped: the
    /// ledger moves the claim to another): defined with a factory chip's empty owner
    /// authorization, or on a hardened chip through the owner's policy, which allows
    /// nothing else.
    private static func defineCounter(
        authValue: [UInt8], limit: UInt32, _ connection: TPMConnection, claim: ChipLedger.Claim, ledger: ChipLedger
    ) throws -> PinCounter {
        var attempts = 0
        while true {
            attempts += 1
            if attempts > 1 { try ledger.move(claim) }
            let counter = PinCounter(connection: connection, index: claim.handle)
            do {
                do {
                    try counter.define(authValue: authValue, limit: limit, by: .ownerAuth([]))
                } catch TPMError.wrongAuth {
                    try counter.define(authValue: authValue, limit: limit, by: .defineSpacePolicy)
                }
                return counter
            } catch TPMError.tpm(let code, _) where code.base == ResponseCode.rcNVDefined && attempts < 8 {
                continue
            }
        }
    }

    /// The master for a guess, or nil when the TPM refused its `auth` (a wrong PIN, which
    /// the chip counted: version 3 on the PIN's counter, version 2 on the chip's).
    /// A version 3 PIN whose counter reached its limit throws `pinLimitReached`.
    static func master(_ material: SecretBytes, binding: TPMBinding, connection: TPMConnection) throws -> SecretBytes? {
        let sealer = PinSealer(connection: connection)
        var unsealed: [UInt8]
        do {
            unsealed = try withAuth(material) { auth in
                switch binding {
                case .authValue(let binding):
                    return try sealer.unseal(binding.sealed, authValue: auth)
                case .pinIndex(let binding):
                    let counter = PinCounter(connection: connection, index: binding.index)
                    return try sealer.unseal(
                        binding.sealed, behind: counter, indexName: binding.indexName, pcrs: binding.pcrs,
                        authValue: auth)
                }
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

    /// The decoy's chip work for a guess (`TPMDecoy`). Version 2: a bound PIN's wrong
    /// guess on the decoy's index (its authorization is nobody's: every guess is wrong);
    /// returns no tag. Version 1: the guess's tag, then, unless `seen` has it, a second
    /// HMAC in place of a version 2 binding's unseal; returns the tag, and whether the
    /// stand-in ran (where such a binding's wrong guess would be a chip failure).
    static func decoyWork(
        _ material: SecretBytes, decoy: TPMDecoy, on chip: TPMChip,
        seen: () throws -> [[UInt8]]
    ) throws -> (tag: [UInt8]?, standIn: Bool) {
        try chip.withConnection { connection in
            switch decoy {
            case .pinIndex(let binding):
                _ = try master(material, binding: .pinIndex(binding), connection: connection)
                return (nil, false)
            case .tagKey(let key):
                let tag = try guessTag(material, tagKey: key, connection: connection)
                guard try !seen().contains(tag) else { return (tag, false) }
                _ = try guessTag(material, tagKey: key, connection: connection)
                return (tag, true)
            }
        }
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
    static func withAuth<T>(_ material: SecretBytes, _ body: ([UInt8]) throws -> T) rethrows -> T {
        var auth = material.withUnsafeBytes { Array($0.suffix(32)) }
        while auth.count > 1, auth.last == 0 { auth.removeLast() }
        defer { wipe(&auth) }
        return try body(auth)
    }

    private static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
    }
}
