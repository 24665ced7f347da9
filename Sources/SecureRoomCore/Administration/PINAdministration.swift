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
    public func setPIN(
        _ pin: SecretBytes, for user: UserName, replacing expected: CredentialRecord? = nil,
        ifNone: Bool = false, vaultKey: SecretBytes? = nil, recovery: RecoveryRecord? = nil,
        mustChange: Bool = false
    ) throws {
        let now = clock.now().wallSeconds
        // A PIN the user sets (a change, enrolment) on a hardened chip leaves its old
        // counter behind: refuse while too many of those wait for `tpm prune`.
        if expected != nil || ifNone { try refuseWhileUnprunedCountersPileUp() }
        var record = try derive(pin, for: user, created: now, vaultKey: vaultKey)
        if mustChange { record.mustChange = now }
        let replaced: CredentialRecord?
        do {
            replaced = try writeNewPIN(record, for: user, expected: expected, ifNone: ifNone, recovery: recovery)
        } catch {
            release(record)  // never written: nobody names its index
            throw error
        }
        release(replaced)
    }

    /// How many counters no record names a hardened chip may hold before users may no
    /// longer replace their own PINs (`TPMProblem.pruneNeeded`).
    static let unprunedCounterLimit = 8

    /// Throws `pruneNeeded` when PINs are bound here (`tpm=`), the chip is hardened (its
    /// owner authorization set: only the secret frees an index), and it holds
    /// `unprunedCounterLimit` or more indices no record names. A chip that does not answer
    /// is left for the binding itself to report.
    private func refuseWhileUnprunedCountersPileUp() throws {
        let chip = TPMChip(store.configuration)
        guard store.configuration.tpm != .off,
            let unnamed = try? chip.withConnection({ connection -> [UInt32] in
                try DAStatus.read(connection).ownerAuthSet
                    ? connection.unnamedPinIndices(try store.pinIndicesNamed()) : []
            })
        else { return }
        if unnamed.count >= Self.unprunedCounterLimit { throw SecureRoomError.tpm(.pruneNeeded) }
    }

    /// `setPIN`'s write, under the user's lock: the checks against what is there now, then
    /// the records. Returns the credential it replaced.
    private func writeNewPIN(
        _ record: CredentialRecord, for user: UserName, expected: CredentialRecord?, ifNone: Bool,
        recovery: RecoveryRecord?
    ) throws -> CredentialRecord? {
        try store.withExclusiveLock(for: user) { () -> CredentialRecord? in
            let current = try store.credential(for: user)
            if let expected, current != expected { throw SecureRoomError.changedConcurrently(user: user.rawValue) }
            if ifNone, current != nil { throw SecureRoomError.changedConcurrently(user: user.rawValue) }
            var tally = LockoutRecord()
            tally.lastSuccess = try store.lockout(for: user).lastSuccess
            if let recovery { try store.write(recovery) }
            try store.write(record)
            try store.write(tally, for: user)
            try store.removeOffer(for: user)
            return current
        }
    }

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
    /// of its older record would otherwise still find it. Returns the record written, nil
    /// if the credential had changed meanwhile.
    func rederive(
        _ pin: SecretBytes, for user: UserName, replacing expected: CredentialRecord,
        vaultKey: SecretBytes?
    ) throws -> CredentialRecord? {
        // A bound PIN stays bound: with no chip answering, derive throws and the record stays.
        // Never cheaper to search than before (`KDFParameters.raises`), also when only the
        // binding changes.
        let configured = store.configuration.kdf
        var record = try derive(
            pin, for: user, created: expected.created, vaultKey: vaultKey,
            parameters: configured.raises(expected.parameters) ? configured : expected.parameters,
            bind: expected.binding != nil)
        if record.binding == nil, expected.binding == nil, record.parameters == expected.parameters {
            return nil  // a migration the chip had no room for: nothing gained by a write
        }
        record.vaultErased = expected.vaultErased
        record.mustChange = expected.mustChange
        if case .pinIndex? = record.binding, !expected.isBoundToItsCounter {
            record.mustChange = record.mustChange ?? clock.now().wallSeconds
        }
        let written = try store.withExclusiveLock(for: user) { () -> Bool in
            guard try store.credential(for: user) == expected else { return false }
            try store.write(record)
            return true
        }
        release(written ? expected : record)
        return written ? record : nil
    }

    /// A credential for `pin` with a new salt and `parameters` (default: the configured
    /// ones; argon2 and
    /// the TPM run here, holding no lock), bound to the TPM when `bind` says so or `tpm=`
    /// asks for it: `required` always (no TPM is an error), `auto` when one answers.
    private func derive(
        _ pin: SecretBytes, for user: UserName, created: Int64,
        vaultKey: SecretBytes?, parameters: KDFParameters? = nil, bind: Bool = false
    ) throws -> CredentialRecord {
        let pepper = try store.pepper()
        let parameters = parameters ?? store.configuration.kdf
        let salt = try randomSalt()
        let chip = TPMChip(store.configuration)
        let master: SecretBytes
        var binding: TPMBinding?
        let required = bind || store.configuration.tpm == .required
        // The decoys' index first: a chip with room for it and none for the PIN's leaves
        // nothing behind.
        if bind || bindsNewPINs(chip), try unlessFull(required: required, { try ensureDecoy(on: chip) }) != nil,
            let (counted, boundMaster) = try unlessFull(
                required: required,
                {
                    try BoundKeys.bind(
                        try PINKeys.boundMaterial(
                            pin: pin, user: user, salt: salt, pepper: pepper, parameters: parameters),
                        limit: UInt32(store.configuration.lockout.deny), pcrs: store.configuration.tpmPCRs, on: chip)
                })
        {
            (binding, master) = (.pinIndex(counted), boundMaster)
        } else {
            master = try PINKeys.master(pin: pin, user: user, salt: salt, pepper: pepper, parameters: parameters)
        }
        let verifier = PINKeys.verifier(master: master).withUnsafeBytes { Array($0) }
        return CredentialRecord(
            user: user, parameters: parameters, salt: salt, verifier: verifier,
            digits: pin.count, created: created,
            vaultKey: try vaultKey.map { try VaultKey.wrap($0, master: master, user: user) },
            binding: binding)
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
    /// replaces a version 1 decoy): checked and written under the decoys' lock, so that two
    /// first bindings do not both write one (the loser's index is released).
    private func ensureDecoy(on chip: TPMChip) throws {
        if case .pinIndex? = try store.tpmDecoy() { return }
        let decoy = try BoundKeys.makeDecoy(pcrs: store.configuration.tpmPCRs, on: chip)
        let written = try store.withExclusiveLock(on: .decoy(0)) { () -> Bool in
            if case .pinIndex? = try store.tpmDecoy() { return false }
            try store.write(decoy)
            return true
        }
        if !written, case .pinIndex(let binding) = decoy { release(binding, on: chip) }
    }

    /// Frees the index of a record just replaced or removed (read under the user's lock,
    /// so each is released once), if it had one.
    private func release(_ record: CredentialRecord?) {
        if case .pinIndex(let binding)? = record?.binding { release(binding, on: TPMChip(store.configuration)) }
    }

    /// Frees the index of a binding no record names any more, where the owner's
    /// authorization is a factory chip's empty one (on a hardened chip only the holder of
    /// the TPM recovery secret can: `secureroom tpm status` counts what is left). Only
    /// on the chip the binding was made on (its storage key's name), and only when no
    /// other record or the decoys name the handle: after a chip was cleared, or old state
    /// files put back, the handle may be someone else's index now, with the same Name.
    /// Best effort: the record that replaced it is already written.
    private func release(_ binding: PinIndexBinding, on chip: TPMChip) {
        _ = try? chip.withConnection { connection in
            // The chip first: on another chip, or none, no record needs reading.
            guard try connection.storageKeyName() == binding.sealed.parentName,
                !(try store.pinIndicesNamed()).contains(binding.index)
            else { return }
            try PinCounter(connection: connection, index: binding.index).undefine(ownerAuth: [])
        }
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
            tally.clear()
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

    /// Deletes the user's PIN and tally, and frees its index in the TPM.
    public func removePIN(for user: UserName) throws {
        let removed = try store.withExclusiveLock(for: user) { () -> CredentialRecord? in
            let current = (try? store.credential(for: user)) ?? nil
            try store.removeRecords(for: user)
            return current
        }
        release(removed)
    }
}
