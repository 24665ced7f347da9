// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Checks a PIN under the lockout rules (docs/DESIGN.md §4, docs/FORMAT.md §4). Shared by the
/// PAM module, the admin tool's `change`, and the setuid helper — the one implementation
/// of the rules: `LockoutProtocol`'s three steps around the kind of check the record
/// calls for (`UnboundCheck`, `BoundCheck`, or `DecoyCheck` for a name without a PIN).
public struct PINVerifier {
    /// The outcome of one check.
    public enum Outcome {
        /// Right PIN, and what its caller needs to know besides (`Success`).
        case success(Success)
        /// Wrong PIN; the tally now stands at `status`. `vaultErased`: this failure reached
        /// `wipe_after` and erased the PIN-wrapped vault key.
        case incorrect(LockoutStatus, vaultErased: Bool = false)
        /// A wrong PIN already counted in this run; nothing was counted again.
        case repeatedIncorrect(LockoutStatus)
        /// Refused without checking: the tally is delayed or disabled.
        case locked(LockoutStatus)
        /// The user has no PIN (it was removed while the check ran); the time and writes a
        /// wrong PIN costs were spent (on the name's decoy, `verifyDecoy`).
        case notEnrolled
    }

    /// What a right PIN tells its caller besides "yes", taken in step 3 from the records it
    /// resolved, so that no caller looks at the store again (docs/DESIGN.md §6).
    public struct Success {
        /// The user's vault data key (DEK), unwrapped with the same argon2 output; nil
        /// without a vault.
        public let vaultKey: SecretBytes?
        /// Since when this PIN must be changed (`secureroom set --expire`); nil if it need not.
        public let mustChange: Int64?
        /// `wipe_after` erased the PIN-wrapped vault key since the last login (to tell once,
        /// then `PINAdministration.acknowledgeVaultErasure`).
        public let vaultErased: CredentialRecord.VaultErasure?
        /// The failed attempts this success ended (since the last login), and how many of
        /// them were not forgiven and count for a year (`LockoutPolicy.recordSuccess`).
        public let failures: (count: Int, unforgiven: Int)

        /// A success that carries `vaultKey` and nothing else to tell.
        public init(
            vaultKey: SecretBytes?, mustChange: Int64? = nil, vaultErased: CredentialRecord.VaultErasure? = nil,
            failures: (count: Int, unforgiven: Int) = (0, 0)
        ) {
            self.vaultKey = vaultKey
            self.mustChange = mustChange
            self.vaultErased = vaultErased
            self.failures = failures
        }
    }

    /// The state.
    public let store: StateStore
    /// The time source.
    public let clock: any Clock
    /// Observes each argon2 run (tests count them).
    public var argon2Observer: (() -> Void)?

    /// A verifier over `store`.
    public init(store: StateStore, clock: any Clock = SystemClock()) {
        self.store = store
        self.clock = clock
    }

    /// Where the user's tally stands, without taking the lock (records are replaced by
    /// rename, so a read never sees a torn file). Nil if the user has no PIN.
    public func status(of user: UserName) throws -> LockoutStatus? {
        guard try store.credential(for: user) != nil else { return nil }
        return store.configuration.lockout.status(of: try store.lockout(for: user), at: clock.now())
    }

    /// Refuses before any prompt a PIN that cannot be checked now. A record whose argon2
    /// cost is below the floor (`Configuration.acceptsCost`) is refused as damaged, unless
    /// the check is `replacing` it (a change writes the new PIN at the configured cost).
    /// A bound PIN: its TPM does not
    /// answer, or its own counter there reached its limit (`pinSpent`, read without
    /// counting anything); for a version 2 binding, the chip is in dictionary-attack
    /// lockout (then with the time left, read from the chip), or the account has spent its
    /// share of the chip's counter (`TPMShare`). No argon2 runs and nothing is counted. A
    /// name without a PIN (`nopin=fail`'s decoy) gets the same work, on its decoy slot,
    /// once any PIN is bound (`TPMDecoy`); a PIN not yet bound does not depend on the
    /// chip.
    public func requireCheckable(for user: UserName, replacing: Bool = false) throws {
        let credential = try store.credential(for: user)
        if let parameters = credential?.parameters, !replacing, !store.configuration.acceptsCost(parameters) {
            throw SecureRoomError.corruptRecord(
                path: "\(store.configuration.directory)/users/\(user.rawValue).credential",
                reason: "argon2 \(parameters.summary) is below the floor of \(KDFParameters.floorDescription); "
                    + "set the PIN again")
        }
        if let credential, !store.configuration.acceptsLength(credential.digits) {
            throw SecureRoomError.pinLengthChanged(
                user: user.rawValue, digits: credential.digits, configured: store.configuration.format.digits)
        }
        let decoy = credential == nil ? try store.tpmDecoy() : nil
        if case .pinIndex(let binding)? = credential?.binding {
            try Self.requireCounter(binding, TPMChip(store.configuration))
            return
        }
        if case .pinIndex(let binding)? = decoy {
            try Self.requireCounter(binding, TPMChip(store.configuration))
            return
        }
        let file: TallyFile
        if credential?.binding != nil {
            file = .user(user)
        } else if decoy != nil {
            file = .decoy(PINKeys.decoy(for: user, pepper: try store.pepper()).slot)
        } else {
            return
        }
        let status = try TPMChip(store.configuration).daStatus()
        if status.inLockout { throw SecureRoomError.tpm(.lockedOut(seconds: TPMChip.secondsLeft(status))) }
        if let seconds = TPMShare(status).secondsLeft(
            try store.lockout(at: file).chipFailedAt, now: clock.now().wallSeconds)
        {
            throw SecureRoomError.tpm(.shareSpent(seconds: seconds))
        }
    }

    /// Refuses a PIN whose counter reached its limit (`pinSpent`), or that was sealed to
    /// another boot (`bootChanged`): reads anyone may make, which count nothing.
    private static func requireCounter(_ binding: PinIndexBinding, _ chip: TPMChip) throws {
        let standing = try binding.standing(on: chip)
        if !standing.bootMatches { throw SecureRoomError.tpm(.bootChanged) }
        if standing.count >= standing.limit { throw SecureRoomError.tpm(.pinSpent) }
    }

    /// Checks `pin` for `user` as described above.
    ///
    /// Callers that prompt should use `check(_:pin:)`, which refuses a locked PIN and
    /// skips a user without one before asking.
    ///
    /// `whileLocked` runs after a successful check, under the lock of step 3, with the
    /// credential and the argon2 output; a credential it changes is written back.
    /// Without it, a record whose argon2 cost differs from the configured one is
    /// re-derived with the PIN just proven (`rehash`).
    public func verify(
        _ pin: SecretBytes, for user: UserName,
        whileLocked: ((inout CredentialRecord, SecretBytes) throws -> Void)? = nil
    ) throws -> Outcome {
        let pepper = try store.pepper()
        let lockout = try LockoutProtocol(store: store, clock: clock, file: .user(user))
        let credential: CredentialRecord
        switch try lockout.admit({ try store.credential(for: user) }) {
        case .absent:
            _ = try verifyDecoy(pin, for: user)
            return .notEnrolled
        case .refused(let status):
            return .locked(status)
        case .counted(let record):
            credential = record
        }
        argon2Observer?()
        let check: any PINCheck =
            credential.binding.map {
                BoundCheck(credential: credential, binding: $0, pepper: pepper, chip: TPMChip(store.configuration))
            } ?? UnboundCheck(credential: credential, pepper: pepper)
        let guess = try lockout.test(check, pin)

        // Step 3. A success also hands out the credential as written, for `rehash`.
        var succeeded: CredentialRecord?
        let outcome = try lockout.settle(guess) { tally in
            let found = try store.credential(for: user)
            guard var current = found, current.isSamePIN(as: credential) else {
                // The PIN was set or removed by an administrator meanwhile: this check
                // was against a PIN that no longer exists, and counts nothing.
                return found == nil ? .notEnrolled : .incorrect(lockout.status(of: tally))
            }
            if let master = guess.master {
                let ended = store.configuration.lockout.recordSuccess(in: &tally.record, at: clock.now().wallSeconds)
                try tally.commit()
                if let whileLocked {
                    let before = current
                    try whileLocked(&current, master)
                    if current != before { try store.write(current) }
                }
                succeeded = current
                return .success(
                    Success(
                        vaultKey: current.vaultKey.flatMap { VaultKey.unwrap($0, master: master, user: user) },
                        mustChange: current.mustChange, vaultErased: current.vaultErased,
                        failures: (ended.forgiven + ended.unforgiven, ended.unforgiven)))
            }
            let outcome = lockout.countWrongGuess(guess, in: tally)
            guard case .incorrect(let status, _) = outcome, tally.wasPending,
                let limit = store.configuration.wipeAfter, tally.record.failures >= limit, current.vaultKey != nil
            else { return outcome }
            try tally.commit()
            current.vaultKey = nil
            current.vaultErased = .init(at: clock.now().wallSeconds, failures: tally.record.failures)
            try store.write(current)
            return .incorrect(status, vaultErased: true)
        }
        if whileLocked == nil, let succeeded, case .success(let success) = outcome,
            let rewritten = try rehash(pin, for: user, checked: succeeded, vaultKey: success.vaultKey),
            rewritten.mustChange != success.mustChange
        {
            return .success(
                Success(
                    vaultKey: success.vaultKey, mustChange: rewritten.mustChange, vaultErased: success.vaultErased,
                    failures: success.failures))
        }
        return outcome
    }

    /// Re-derives a credential whose argon2 parameters differ from the configured ones,
    /// now that the PIN is known to be right: a new salt and verifier with the current
    /// parameters and the vault key re-wrapped, in one atomic write (the recovery record
    /// is untouched). argon2 runs outside the lock; the write happens only if the record
    /// is still the one that was checked.
    /// `checked` is the credential step 3 verified, `vaultKey` the key it unwrapped: no
    /// record is read again for the (usual) case where nothing needs re-deriving.
    /// The same happens to a record not bound to a TPM when `tpm=auto|required` and a TPM
    /// answers, and to a record bound under PolicyAuthValue (migration, docs/FORMAT.md §3),
    /// which then must be changed (`PINAdministration.rederive`). A TPM that fails
    /// meanwhile leaves the record as it was, and the login a success: the next one tries
    /// again. Returns the record written, nil if none was.
    private func rehash(_ pin: SecretBytes, for user: UserName, checked: CredentialRecord, vaultKey: SecretBytes?)
        throws -> CredentialRecord?
    {
        let administration = PINAdministration(store: store, clock: clock)
        let unbound = !checked.isBoundToItsCounter && store.configuration.tpm != .off
        guard checked.vaultKey == nil || vaultKey != nil,
            store.configuration.kdf.raises(checked.parameters) || (unbound && TPMChip(store.configuration).answers())
        else { return nil }
        do {
            return try administration.rederive(pin, for: user, replacing: checked, vaultKey: vaultKey)
        } catch SecureRoomError.tpm {
            return nil
        }
    }

    /// A check for a user without a PIN, or an unknown name (`nopin=fail`): the same three
    /// steps, the same two durable writes and argon2 run, and the same answers — counts,
    /// delays, repeats, lockout — as a wrong PIN of an enrolled user, kept on the decoy slot
    /// the name hashes to (`TallyFile.decoy`, `DecoyCheck`), so that who has a PIN cannot
    /// be told from outside and no file is made per name tried. It never succeeds.
    public func verifyDecoy(_ pin: SecretBytes, for user: UserName) throws -> Outcome {
        let pepper = try store.pepper()
        let (slot, salt) = PINKeys.decoy(for: user, pepper: pepper)
        let lockout = try LockoutProtocol(store: store, clock: clock, file: .decoy(slot))
        switch try lockout.admit({ () }) {
        case .absent: return .notEnrolled
        case .refused(let status): return .locked(status)
        case .counted: break
        }
        argon2Observer?()
        let chip = try store.tpmDecoy().map { (decoy: $0, chip: TPMChip(store.configuration)) }
        let check = DecoyCheck(user: user, salt: salt, pepper: pepper, parameters: store.configuration.kdf, chip: chip)
        let guess = try lockout.test(check, pin)
        return try lockout.settle(guess) { lockout.countWrongGuess(guess, in: $0) }
    }

    /// Where the decoy of `user` stands (`verifyDecoy`), read without a lock.
    public func decoyStatus(of user: UserName) throws -> LockoutStatus {
        let file = TallyFile.decoy(PINKeys.decoy(for: user, pepper: try store.pepper()).slot)
        return store.configuration.lockout.status(of: try store.lockout(at: file), at: clock.now())
    }

    /// `nopin=fail` for a caller without the state (the PAM module without root, whose
    /// real checks go through secureroom-helper): the decoys are out of reach, so it spends
    /// one argon2 run with the configured parameters on a random salt and pepper (none
    /// when `pin` is nil: the helper already spent a decoy's) and answers what a first
    /// wrong PIN gets. There are no writes to match.
    public static func decoyWithoutState(
        _ pin: SecretBytes?, for user: UserName, configuration: Configuration, clock: any Clock = SystemClock()
    ) throws -> Outcome {
        if let pin {
            _ = try PINKeys.master(
                pin: pin, user: user, salt: try randomSalt(), pepper: try Pepper.generate(),
                parameters: configuration.kdf)
        }
        var firstFailure = LockoutRecord()
        firstFailure.lastFailure = clock.now()
        firstFailure.failedAt = [clock.now().wallSeconds]
        return .incorrect(configuration.lockout.status(of: firstFailure, at: clock.now()))
    }
}

/// 16 random bytes for a new record's salt.
func randomSalt() throws -> [UInt8] {
    try SecretBytes.random(count: Argon2id.saltLength).withUnsafeBytes { Array($0) }
}
