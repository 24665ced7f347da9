/// Checks a PIN under the lockout rules (docs/DESIGN.md §4, docs/FORMAT.md §4). Shared by the
/// PAM module, the admin tool's `change`, and the setuid helper — the one implementation
/// of the rules.
///
/// One check, in three steps; the user's lock is held only for the first and the last,
/// never across argon2, so a stopped or slow check delays nobody:
/// 1. under the lock: refuse at once, without argon2, if the tally is delayed or
///    disabled; otherwise count the attempt as pending and fsync it;
/// 2. without a lock: run argon2 once;
/// 3. under the lock: resolve the pending attempt against the records as they are now.
///    Right PIN: end the run (its failures of the last 5 minutes are forgiven, older ones
///    keep counting for a year: `LockoutRecord.recordSuccess`) and unwrap the vault key. Wrong PIN already counted in
///    this run (same guess tag): drop the attempt, not counted again. Otherwise count a
///    failure, remember its tag, and erase the vault key once `wipe_after` is reached.
/// A process killed or stopped between 1 and 3 leaves its attempt counted: never a free
/// guess. An administrator's reset or a success during step 2 removed the pending
/// attempt; a wrong PIN then counts nothing, so a reset is never undone.
public struct PINVerifier {
    /// The outcome of one check.
    public enum Outcome {
        /// Right PIN; `vaultKey` is the user's vault data key (DEK), unwrapped with the
        /// same argon2 output, or nil if the user has no vault.
        case success(vaultKey: SecretBytes?)
        /// Wrong PIN; the tally now stands at `status`. `vaultErased`: this failure reached
        /// `wipe_after` and erased the PIN-wrapped vault key.
        case incorrect(LockoutStatus, vaultErased: Bool = false)
        /// A wrong PIN already counted in this run; nothing was counted again.
        case repeatedIncorrect(LockoutStatus)
        /// Refused without checking: the tally is delayed or disabled.
        case locked(LockoutStatus)
        /// The user has no PIN (it was removed while the check ran); the time and writes a
        /// wrong PIN costs were spent (`spendEquivalentTime`).
        case notEnrolled
    }

    /// What step 1 found.
    private enum Counting {
        case notEnrolled
        case locked(LockoutStatus)
        case counted(CredentialRecord)
    }

    /// The state.
    public let store: StateStore
    /// The time source.
    public let clock: any Clock
    /// Observes each argon2 run (tests and benchmarks count them).
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

    /// Refuses before any prompt a bound PIN that cannot be checked now: its TPM does not
    /// answer, is in dictionary-attack lockout (then with the time left, read from the
    /// chip), or the account has spent its share of the chip's counter (`TPMShare`). No
    /// argon2 runs and nothing is counted. A name without a PIN (`nopin=fail`'s decoy)
    /// gets the same, on its decoy slot, once any PIN is bound (`DecoyTagKey`); a PIN not
    /// yet bound does not depend on the chip.
    public func requireTPM(for user: UserName) throws {
        let credential = try store.credential(for: user)
        let file: TallyFile
        if credential?.binding != nil {
            file = .user(user)
        } else if try credential == nil && store.decoyTagKey() != nil {
            file = .decoy(PINKeys.decoy(for: user, pepper: try store.pepper()).slot)
        } else {
            return
        }
        let status = try TPMChip(store.configuration).daStatus()
        if status.inLockout { throw SecureRoomError.tpm(.lockedOut(seconds: TPMChip.secondsLeft(status))) }
        if let seconds = TPMShare(status).secondsLeft(try store.lockout(at: file).chipFailedAt, now: clock.now().wallSeconds) {
            throw SecureRoomError.tpm(.shareSpent(seconds: seconds))
        }
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
    public func verify(_ pin: SecretBytes, for user: UserName,
                       whileLocked: ((inout CredentialRecord, SecretBytes) throws -> Void)? = nil) throws -> Outcome {
        let pepper = try store.pepper()
        let policy = store.configuration.lockout
        let attempt = try newAttempt()

        // Step 1: count the attempt.
        let counting: Counting = try store.withExclusiveLock(for: user) {
            guard let credential = try store.credential(for: user) else { return .notEnrolled }
            var tally = try store.lockout(for: user)
            if let refusal = tally.admit(attempt, under: policy, at: clock.now()) { return .locked(refusal) }
            try store.write(tally, for: user)
            return .counted(credential)
        }
        let credential: CredentialRecord
        switch counting {
        case .notEnrolled:
            try spendEquivalentTime(pin, user: user)
            return .notEnrolled
        case .locked(let status):
            return .locked(status)
        case .counted(let record):
            credential = record
        }

        // Step 2: argon2 and, for a bound PIN, the TPM, holding nothing. A TPM that does not
        // do its part tested nothing: the attempt is withdrawn, not counted.
        argon2Observer?()
        let guess: Guess
        do {
            guess = try Guess(pin, for: credential, pepper: pepper, chip: TPMChip(store.configuration),
                              seen: { try store.lockout(for: user).seenGuesses })
        } catch let error as SecureRoomError {
            try withdraw(attempt, at: .user(user))
            throw error
        }
        let master = guess.master

        // Step 3: resolve the attempt against the records as they are now. A success also
        // hands out the credential as written, for `rehash`.
        var succeeded: CredentialRecord?
        let outcome: Outcome = try store.withExclusiveLock(for: user) {
            var tally = try store.lockout(for: user)
            let wasPending = tally.resolve(attempt)
            // A wrong PIN the chip tested is the account's share of the chip's counter,
            // whatever else happened meanwhile (`TPMShare`).
            if guess.chipTested { tally.recordChipFailure(at: clock.now().wallSeconds) }
            let found = try store.credential(for: user)
            guard var current = found, current.isSamePIN(as: credential) else {
                // The PIN was set or removed by an administrator meanwhile: this check
                // was against a PIN that no longer exists, and counts nothing.
                if wasPending || guess.chipTested { try store.write(tally, for: user) }
                return found == nil ? .notEnrolled : .incorrect(policy.status(of: tally, at: clock.now()))
            }
            if let master {
                tally.recordSuccess(at: clock.now().wallSeconds)
                try store.write(tally, for: user)
                if let whileLocked {
                    let before = current
                    try whileLocked(&current, master)
                    if current != before { try store.write(current) }
                }
                succeeded = current
                return .success(vaultKey: current.vaultKey.flatMap { VaultKey.unwrap($0, master: master, user: user) })
            }
            guard wasPending else {
                // A reset or a success removed this attempt while argon2 ran: it counts nothing.
                if guess.chipTested { try store.write(tally, for: user) }
                return .incorrect(policy.status(of: tally, at: clock.now()))
            }
            guard tally.recordWrongGuess(attempt, tag: guess.tag) else {
                try store.write(tally, for: user)
                return .repeatedIncorrect(policy.status(of: tally, at: clock.now()))
            }
            try store.write(tally, for: user)
            let status = policy.status(of: tally, at: clock.now())
            if let limit = store.configuration.wipeAfter, tally.failures >= limit, current.vaultKey != nil {
                current.vaultKey = nil
                current.vaultErased = .init(at: clock.now().wallSeconds, failures: tally.failures)
                try store.write(current)
                return .incorrect(status, vaultErased: true)
            }
            return .incorrect(status)
        }
        if whileLocked == nil, let succeeded, case .success(let vaultKey) = outcome {
            try rehash(pin, for: user, checked: succeeded, vaultKey: vaultKey)
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
    /// answers (migration, docs/FORMAT.md §3). A TPM that fails meanwhile leaves the record
    /// as it was, and the login a success: the next one tries again.
    private func rehash(_ pin: SecretBytes, for user: UserName, checked: CredentialRecord, vaultKey: SecretBytes?) throws {
        let enrollment = Enrollment(store: store, clock: clock)
        let unbound = checked.binding == nil && store.configuration.tpm != .off
        guard checked.vaultKey == nil || vaultKey != nil,
              checked.parameters != store.configuration.kdf || (unbound && TPMChip(store.configuration).answers())
        else { return }
        do {
            try enrollment.rederive(pin, for: user, replacing: checked, vaultKey: vaultKey)
        } catch SecureRoomError.tpm {
            return
        }
    }

    /// A check for a user without a PIN, or an unknown name (`nopin=fail`): the same three
    /// steps, the same two durable writes and argon2 run, and the same answers — counts,
    /// delays, repeats, lockout — as a wrong PIN of an enrolled user, kept on the decoy slot
    /// the name hashes to (`TallyFile.decoy`), so that who has a PIN cannot be told from
    /// outside and no file is made per name tried. It never succeeds.
    public func verifyDecoy(_ pin: SecretBytes, for user: UserName) throws -> Outcome {
        let pepper = try store.pepper()
        let policy = store.configuration.lockout
        let (slot, salt) = PINKeys.decoy(for: user, pepper: pepper)
        let file = TallyFile.decoy(slot)
        let attempt = try newAttempt()
        let refusal: LockoutStatus? = try store.withExclusiveLock(on: file) {
            var tally = try store.lockout(at: file)
            if let refusal = tally.admit(attempt, under: policy, at: clock.now()) { return refusal }
            try store.write(tally, at: file)
            return nil
        }
        if let refusal { return .locked(refusal) }
        argon2Observer?()
        let tag: [UInt8]
        var standIn = false
        if let key = try store.decoyTagKey() {
            // Some PIN is bound to the TPM: the chip work of a bound PIN's wrong guess too.
            let material = try PINKeys.boundMaterial(pin: pin, user: user, salt: salt, pepper: pepper,
                                                     parameters: store.configuration.kdf)
            do {
                (tag, standIn) = try BoundKeys.decoyTag(material, key: key, on: TPMChip(store.configuration),
                                                        seen: { try store.lockout(at: file).seenGuesses })
            } catch let error as SecureRoomError {
                try withdraw(attempt, at: file)
                throw error
            }
        } else {
            tag = PINKeys.guessTag(master: try PINKeys.master(pin: pin, user: user, salt: salt, pepper: pepper,
                                                              parameters: store.configuration.kdf))
        }
        return try store.withExclusiveLock(on: file) {
            var tally = try store.lockout(at: file)
            if standIn { tally.recordChipFailure(at: clock.now().wallSeconds) }
            guard tally.resolve(attempt) else {
                if standIn { try store.write(tally, at: file) }
                return .incorrect(policy.status(of: tally, at: clock.now()))
            }
            let counted = tally.recordWrongGuess(attempt, tag: tag)
            try store.write(tally, at: file)
            let status = policy.status(of: tally, at: clock.now())
            return counted ? .incorrect(status) : .repeatedIncorrect(status)
        }
    }

    /// Where the decoy of `user` stands (`verifyDecoy`), read without a lock.
    public func decoyStatus(of user: UserName) throws -> LockoutStatus {
        let file = TallyFile.decoy(PINKeys.decoy(for: user, pepper: try store.pepper()).slot)
        return store.configuration.lockout.status(of: try store.lockout(at: file), at: clock.now())
    }

    /// Spends what a wrong PIN costs, for a user without a PIN: the decoy check where the
    /// state can be read (as root), else one argon2 run with the configured parameters on
    /// a random salt and pepper (a caller without the state, whose real checks go through
    /// secureroom-helper, has no writes to match).
    public func spendEquivalentTime(_ pin: SecretBytes, user: UserName) throws {
        if (try? store.pepper()) != nil {
            _ = try verifyDecoy(pin, for: user)
            return
        }
        argon2Observer?()
        _ = try PINKeys.master(pin: pin, user: user, salt: try randomSalt(), pepper: try Pepper.generate(),
                               parameters: store.configuration.kdf)
    }

    /// Removes a pending attempt that tested no guess (its TPM did not do its part).
    private func withdraw(_ attempt: LockoutRecord.PendingAttempt, at file: TallyFile) throws {
        try store.withExclusiveLock(on: file) {
            var tally = try store.lockout(at: file)
            if tally.resolve(attempt) { try store.write(tally, at: file) }
        }
    }

    /// A new pending attempt, counted now.
    private func newAttempt() throws -> LockoutRecord.PendingAttempt {
        LockoutRecord.PendingAttempt(
            id: try SecretBytes.random(count: LockoutRecord.PendingAttempt.idLength).withUnsafeBytes { Array($0) },
            counted: clock.now())
    }
}

/// 16 random bytes for a new record's salt.
func randomSalt() throws -> [UInt8] {
    try SecretBytes.random(count: Argon2id.saltLength).withUnsafeBytes { Array($0) }
}
