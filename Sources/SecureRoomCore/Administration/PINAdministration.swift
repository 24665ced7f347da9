// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Writing PIN records as an administrator or a PIN change does (never a check: that is
/// `Verification/`): setting, creating (`enrol`), expiring and removing PINs, resetting
/// tallies, setting up and recovering vault keys. The operations behind `secureroom
/// set/expire/reset/enrol`, the last step of a PIN change (`PINAuthority.change`) and a
/// re-derivation after a login.
public struct PINAdministration {
    /// The state.
    public let store: StateStore
    /// The time source.
    public let clock: any Clock

    /// The operations on `store`.
    public init(store: StateStore, clock: any Clock = SystemClock()) {
        self.store = store
        self.clock = clock
    }

    /// Gives `user` the PIN `pin` (already validated and policy-checked by the caller):
    /// a new salt, the configured argon2 parameters, and a fresh tally (keeping
    /// `last-success`). With `replacing`, the write happens only if the user's credential
    /// is still exactly that record — a PIN change must not overwrite an administrator's
    /// `set`, `reset --remove-pin`, a vault set-up or another change made since the
    /// current PIN was checked. `ifNone`: only if the user has no PIN at all (a PIN the
    /// user creates must not replace one set meanwhile).
    /// `vaultKey` (the DEK, from the old PIN or the recovery key) is wrapped under the new
    /// PIN, so the vault's secrets stay readable without being re-encrypted; `recovery` is
    /// written with it, first. `mustChange`: the PIN must be changed at its next use.
    /// A PIN the user sets (`replacing` or `ifNone`) is bound to the chip as the user's own
    /// (`ChipLedger.Charge.user`: refused at the user's limit of counters left behind); an
    /// administrator's is charged to nobody and never refused for it.
    /// Returns whether the replaced PIN's counter stayed on the chip (a hardened chip: only
    /// `secureroom tpm prune` frees it).
    @discardableResult
    public func setPIN(
        _ pin: SecretBytes, for user: UserName, replacing expected: CredentialRecord? = nil,
        ifNone: Bool = false, vaultKey: SecretBytes? = nil, recovery: RecoveryRecord? = nil,
        mustChange: Bool = false
    ) throws -> Bool {
        let now = clock.now().wallSeconds
        let charge: ChipLedger.Charge = expected != nil || ifNone ? .user(user) : .administrator(user)
        var (record, claim): (CredentialRecord, ChipLedger.Claim?)
        do {
            (record, claim) = try derive(pin, for: user, created: now, vaultKey: vaultKey, charge: charge)
        } catch is ChipLedger.BindingInFlight {
            // Another of the user's own bindings is in flight: one of the two would lose anyway.
            throw SecureRoomError.changedConcurrently(user: user.rawValue)
        }
        if mustChange { record.mustChange = now }
        return try commit(claim) {
            try writeNewPIN(record, for: user, expected: expected, ifNone: ifNone, recovery: recovery, charge: charge)
        } ?? false
    }

    /// `setPIN`'s write, under the user's lock: the checks against what is there now, then
    /// the records. Returns the credential it replaced, and the ledger's entry for its
    /// index (written before the record that named it is replaced).
    private func writeNewPIN(
        _ record: CredentialRecord, for user: UserName, expected: CredentialRecord?, ifNone: Bool,
        recovery: RecoveryRecord?, charge: ChipLedger.Charge
    ) throws -> (CredentialRecord?, ChipLedger.Claim?) {
        try store.withExclusiveLock(for: user) { () -> (CredentialRecord?, ChipLedger.Claim?) in
            let current = try store.credential(for: user)
            if let expected, current != expected { throw SecureRoomError.changedConcurrently(user: user.rawValue) }
            if ifNone, current != nil { throw SecureRoomError.changedConcurrently(user: user.rawValue) }
            var tally = LockoutRecord()
            tally.lastSuccess = try store.lockout(for: user).lastSuccess
            let left = try willReplace(current, charge: charge)
            if let recovery { try store.write(recovery) }
            try store.write(record)
            try store.write(tally, for: user)
            try store.removeOffer(for: user)
            return (current, left)
        }
    }

    /// How many counters of replaced PINs one user may leave on a hardened chip before
    /// that user may no longer replace their own PIN (`TPMProblem.pruneNeeded`).
    public static var unprunedCounterLimit: Int { ChipLedger.perUserLimit }

    /// A user without a PIN creates one (`enrol=`, `secureroom enrol`): set only if the
    /// user still has none. With `vault`, and no recovery record left from an earlier
    /// vault, a new vault key is made, wrapped under the PIN and under a new recovery key;
    /// both keys are returned (the recovery key to be shown once).
    public func enrol(
        _ pin: SecretBytes, for user: UserName,
        vault: Bool
    ) throws -> (vaultKey: SecretBytes, recoveryKey: RecoveryKey)? {
        guard vault, try store.recovery(for: user) == nil else {
            try setPIN(pin, for: user, ifNone: true)
            return nil
        }
        let vaultKey = try VaultKey.generate()
        let recoveryKey = try RecoveryKey.generate()
        let recovery = try recoveryRecord(for: user, vaultKey: vaultKey, recoveryKey: recoveryKey)
        try setPIN(pin, for: user, ifNone: true, vaultKey: vaultKey, recovery: recovery)
        return (vaultKey, recoveryKey)
    }

    /// Marks the user's PIN as one that must be changed at its next use (an
    /// administrator's `secureroom expire`). Throws `notEnrolled` without a PIN.
    public func expire(_ user: UserName) throws {
        try store.withExclusiveLock(for: user) {
            guard var credential = try store.credential(for: user) else {
                throw SecureRoomError.notEnrolled(user: user.rawValue)
            }
            credential.mustChange = clock.now().wallSeconds
            try store.write(credential)
        }
    }

    /// Notes that the user declined the enrolment offer now.
    public func declineOffer(for user: UserName) throws {
        try store.withExclusiveLock(for: user) {
            try store.write(OfferRecord(user: user, declined: clock.now().wallSeconds))
        }
    }

    /// Re-derives `expected` (whose PIN `pin` was just proven) with the configured argon2
    /// parameters and a new salt, keeping its creation time, its notes (`must-change`,
    /// `vault-erased`) and re-wrapping `vaultKey`; written only if the credential is still
    /// `expected`. The tally is left alone. A PIN that was not bound to its own counter
    /// before and is now must be changed at its next use (docs/SECURITY.md §1.2): a copy
    /// of its older record would otherwise still find it. The binding is the user's own
    /// (`ChipLedger.Charge.user`); while another binding of the user is in flight (a second
    /// right PIN at the same time), nothing is re-derived. Returns the record written, nil
    /// if none was.
    func rederive(
        _ pin: SecretBytes, for user: UserName, replacing expected: CredentialRecord,
        vaultKey: SecretBytes?
    ) throws -> CredentialRecord? {
        // A bound PIN stays bound: with no chip answering, derive throws and the record stays.
        // Never cheaper to search than before (`KDFParameters.raises`), also when only the
        // binding changes.
        let configured = store.configuration.kdf
        var (record, claim): (CredentialRecord, ChipLedger.Claim?)
        do {
            (record, claim) = try derive(
                pin, for: user, created: expected.created, vaultKey: vaultKey,
                parameters: configured.raises(expected.parameters) ? configured : expected.parameters,
                bind: expected.binding != nil, charge: .user(user))
        } catch is ChipLedger.BindingInFlight {
            return nil
        }
        if record.binding == nil, expected.binding == nil, record.parameters == expected.parameters {
            return nil  // a migration the chip had no room for: nothing gained by a write
        }
        record.vaultErased = expected.vaultErased
        record.mustChange = expected.mustChange
        if case .pinIndex? = record.binding, !expected.isBoundToItsCounter {
            record.mustChange = record.mustChange ?? clock.now().wallSeconds
        }
        let written = try commit(claim) {
            try store.withExclusiveLock(for: user) { () -> (CredentialRecord?, ChipLedger.Claim?)? in
                guard try store.credential(for: user) == expected else { return nil }
                let left = try willReplace(expected, charge: .user(user))
                try store.write(record)
                return (expected, left)
            }
        }
        return written == nil ? nil : record
    }

    /// Runs `write`, which writes the record naming `claim`'s index (under a lock) and
    /// returns what it replaced with that one's ledger entry, or nil when it wrote nothing.
    /// Then settles the claim, or abandons it when nothing was written (or `write` threw:
    /// nobody names its index), and frees the replaced index (`afterReplacing`). Returns
    /// whether the replaced index stayed on the chip; nil when nothing was written.
    private func commit(
        _ claim: ChipLedger.Claim?, _ write: () throws -> (CredentialRecord?, ChipLedger.Claim?)?
    ) throws -> Bool? {
        let chip = TPMChip(store.configuration)
        let ledger = ChipLedger(store: store)
        let written: (CredentialRecord?, ChipLedger.Claim?)?
        do {
            written = try write()
        } catch {
            if let claim { ledger.abandon(claim, on: chip) }
            throw error
        }
        guard let written else {
            if let claim { ledger.abandon(claim, on: chip) }
            return nil
        }
        if let claim { ledger.settle(claim) }
        return afterReplacing(written, on: chip)
    }

    /// A credential for `pin` with a new salt and `parameters` (default: the configured
    /// ones; argon2 and
    /// the TPM run here, holding no lock), bound to the TPM when `bind` says so or `tpm=`
    /// asks for it: `required` always (no TPM is an error), `auto` when one answers; with
    /// the ledger's claim on its index, which the caller settles once the record is
    /// written or abandons.
    private func derive(
        _ pin: SecretBytes, for user: UserName, created: Int64,
        vaultKey: SecretBytes?, parameters: KDFParameters? = nil, bind: Bool = false, charge: ChipLedger.Charge
    ) throws -> (CredentialRecord, ChipLedger.Claim?) {
        let pepper = try store.pepper()
        let parameters = parameters ?? store.configuration.kdf
        let salt = try randomSalt()
        let chip = TPMChip(store.configuration)
        let master: SecretBytes
        var binding: TPMBinding?
        var claim: ChipLedger.Claim?
        let required = bind || store.configuration.tpm == .required
        // The decoys' index first: a chip with room for it and none for the PIN's leaves
        // nothing behind.
        if bind || bindsNewPINs(chip), try unlessFull(required: required, { try ensureDecoy(on: chip) }) != nil,
            let (counted, boundMaster, held) = try unlessFull(
                required: required,
                {
                    try bindToChip(
                        try PINKeys.boundMaterial(
                            pin: pin, user: user, salt: salt, pepper: pepper, parameters: parameters),
                        limit: UInt32(store.configuration.lockout.deny), charge: charge, on: chip)
                })
        {
            (binding, master, claim) = (.pinIndex(counted), boundMaster, held)
        } else {
            master = try PINKeys.master(pin: pin, user: user, salt: salt, pepper: pepper, parameters: parameters)
        }
        let verifier = PINKeys.verifier(master: master).withUnsafeBytes { Array($0) }
        let record = CredentialRecord(
            user: user, parameters: parameters, salt: salt, verifier: verifier,
            digits: pin.count, created: created,
            vaultKey: try vaultKey.map { try VaultKey.wrap($0, master: master, user: user) },
            binding: binding)
        return (record, claim)
    }

    /// The one way a PIN index is defined (docs/DESIGN.md §11, "The chip's ledger"): the
    /// ledger's claim first (the user's limit, one binding per user in flight, an entry
    /// written before NV_DefineSpace), then the index and the sealed secret. Returns the
    /// binding, the master and the claim, which the caller settles or abandons; a failure
    /// here abandons it.
    private func bindToChip(
        _ material: SecretBytes, limit: UInt32, charge: ChipLedger.Charge, on chip: TPMChip
    ) throws -> (PinIndexBinding, SecretBytes, ChipLedger.Claim) {
        let ledger = ChipLedger(store: store)
        let claim = try ledger.claim(for: charge, on: chip)
        do {
            let (binding, master) = try BoundKeys.bind(
                material, limit: limit, pcrs: store.configuration.tpmPCRs, on: chip, claim: claim, ledger: ledger)
            return (binding, master, claim)
        } catch {
            ledger.abandon(claim, on: chip)
            throw error
        }
    }

    /// `body`'s result, or nil when the chip has no room for another index and binding is
    /// not `required` (`tpm=auto`: the PIN stays unbound, as without a chip; `secureroom
    /// set` says so).
    private func unlessFull<T>(required: Bool, _ body: () throws -> T) throws -> T? {
        do {
            return try body()
        } catch SecureRoomError.tpm(.full) where !required {
            return nil
        }
    }

    /// Makes the decoys' index with the first PIN bound to its own counter, once (it
    /// replaces a version 1 decoy): a random authorization value, forgotten at once; checked
    /// and written under the decoys' lock, so that two first bindings do not both write one
    /// (the loser's index is abandoned).
    private func ensureDecoy(on chip: TPMChip) throws {
        if case .pinIndex? = try store.tpmDecoy() { return }
        let (binding, _, claim) = try bindToChip(
            try SecretBytes.random(count: BoundKeys.materialLength), limit: TPMDecoy.limit, charge: .decoys, on: chip)
        _ = try commit(claim) {
            try store.withExclusiveLock(on: .decoy(0)) { () -> (CredentialRecord?, ChipLedger.Claim?)? in
                if case .pinIndex? = try store.tpmDecoy() { return nil }
                try store.write(TPMDecoy.pinIndex(binding))
                return (nil, nil)
            }
        }
    }

    /// Under the user's lock, before `current` is replaced or removed: the ledger's entry
    /// for its index, if it has one.
    private func willReplace(_ current: CredentialRecord?, charge: ChipLedger.Charge) throws -> ChipLedger.Claim? {
        guard case .pinIndex(let binding)? = current?.binding else { return nil }
        return try ChipLedger(store: store).willReplace(binding, charge: charge)
    }

    /// After a record was replaced or removed (`replaced`, with its entry): frees its index
    /// where the owner's authorization is a factory chip's empty one. Returns whether the
    /// index stayed on the chip (a hardened chip: `tpm prune` frees it).
    @discardableResult
    private func afterReplacing(_ replaced: (CredentialRecord?, ChipLedger.Claim?), on chip: TPMChip) -> Bool {
        guard case .pinIndex(let binding)? = replaced.0?.binding, let claim = replaced.1 else { return false }
        return ChipLedger(store: store).replaced(claim, binding: binding, on: chip)
    }

    /// Whether a PIN set now is bound to `chip` (`tpm=`).
    func bindsNewPINs(_ chip: TPMChip) -> Bool {
        switch store.configuration.tpm {
        case .off: return false
        case .auto: return chip.answers()
        case .required: return true
        }
    }

    /// Inside a successful check (`PINVerifier.verify`'s `whileLocked`): gives the user a
    /// new vault key wrapped under the PIN just checked, and a recovery record wrapping it
    /// again under a new recovery key. Returns the recovery key, to be shown once.
    /// Refuses if a vault key exists, or a recovery record does (only `replace` discards it).
    func setUpVault(
        _ credential: inout CredentialRecord, master: SecretBytes,
        replace: Bool
    ) throws -> RecoveryKey {
        let user = credential.user
        if !replace { try refuseExistingVault(credential) }
        let vaultKey = try VaultKey.generate()
        let recoveryKey = try RecoveryKey.generate()
        try store.write(try recoveryRecord(for: user, vaultKey: vaultKey, recoveryKey: recoveryKey))
        credential.vaultKey = try VaultKey.wrap(vaultKey, master: master, user: user)
        return recoveryKey
    }

    /// Inside a successful check (`PINAuthority.recoverVault`): wraps `vaultKey`, brought
    /// back by the recovery key, under the PIN just checked, and forgets a `wipe_after`
    /// erasure note. The recovery record is left as it is. A vault key the credential got
    /// meanwhile (checked here, under the user's lock) is never overwritten.
    func restoreVault(_ credential: inout CredentialRecord, master: SecretBytes, vaultKey: SecretBytes) throws {
        if credential.vaultKey != nil {
            throw SecureRoomError.vaultKeyExists(user: credential.user.rawValue, recoverable: false)
        }
        credential.vaultKey = try VaultKey.wrap(vaultKey, master: master, user: credential.user)
        credential.vaultErased = nil
    }

    /// `vaultKey` wrapped under `recoveryKey` with a new salt.
    private func recoveryRecord(
        for user: UserName, vaultKey: SecretBytes,
        recoveryKey: RecoveryKey
    ) throws -> RecoveryRecord {
        let salt = try SecretBytes.random(count: RecoveryRecord.saltLength).withUnsafeBytes { Array($0) }
        return RecoveryRecord(
            user: user, salt: salt,
            vaultKey: try VaultKey.wrap(vaultKey, recoveryKey: recoveryKey, salt: salt, user: user),
            created: clock.now().wallSeconds)
    }

    /// Throws `vaultKeyExists` if the credential's user has a vault key, or a recovery
    /// record (a vault whose key only the recovery key can bring back).
    func refuseExistingVault(_ credential: CredentialRecord) throws {
        let user = credential.user.rawValue
        if credential.vaultKey != nil { throw SecureRoomError.vaultKeyExists(user: user, recoverable: false) }
        if try store.recovery(for: credential.user) != nil {
            throw SecureRoomError.vaultKeyExists(user: user, recoverable: true)
        }
    }

    /// The user's vault key, from their recovery record and the recovery key they typed.
    public func recoverVaultKey(for user: UserName, with recoveryKey: RecoveryKey) throws -> SecretBytes {
        guard let record = try store.recovery(for: user),
            let vaultKey = VaultKey.unwrap(record.vaultKey, recoveryKey: recoveryKey, salt: record.salt, user: user)
        else { throw SecureRoomError.wrongRecoveryKey(user: user.rawValue) }
        return vaultKey
    }

    /// Clears the user's tally (an administrator's unlock). Keeps `last-success`.
    public func resetLockout(for user: UserName) throws {
        try store.withExclusiveLock(for: user) {
            var tally = try store.lockout(for: user)
            store.configuration.lockout.clear(&tally)
            try store.write(tally, for: user)
        }
    }

    /// Forgets the note of a `wipe_after` erasure once the user has been told about it
    /// (if the credential still carries exactly that note).
    public func acknowledgeVaultErasure(_ erasure: CredentialRecord.VaultErasure, for user: UserName) throws {
        try store.withExclusiveLock(for: user) {
            guard var credential = try store.credential(for: user), credential.vaultErased == erasure else { return }
            credential.vaultErased = nil
            try store.write(credential)
        }
    }

    /// Deletes the user's PIN and tally, and frees its index in the TPM (on a hardened
    /// chip it stays, in the ledger, charged to nobody). Returns whether it stayed.
    @discardableResult
    public func removePIN(for user: UserName) throws -> Bool {
        let removed = try store.withExclusiveLock(for: user) { () -> (CredentialRecord?, ChipLedger.Claim?) in
            let current = (try? store.credential(for: user)) ?? nil
            let left = try willReplace(current, charge: .administrator(user))
            try store.removeRecords(for: user)
            return (current, left)
        }
        return afterReplacing(removed, on: TPMChip(store.configuration))
    }
}
