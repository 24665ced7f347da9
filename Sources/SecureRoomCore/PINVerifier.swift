/// Checks a PIN under the lockout rules (DESIGN §4). Shared by the PAM module, the
/// admin tool's `change`, and the setuid helper — the one implementation of the rules.
///
/// One check, under the user's exclusive lock:
/// 1. refuse at once, without argon2, if the tally is delayed or disabled;
/// 2. a wrong PIN already counted in this run is refused without costing an attempt;
/// 3. count the attempt as a failure and fsync it *before* running argon2;
/// 4. run argon2 once and compare the verifier in constant time;
/// 5. on success clear the tally and unwrap the vault key; on failure remember the
///    guess's tag, and erase the vault key once `wipe_after` failures are reached.
/// A process killed between 3 and 5 leaves the failure counted: never a free guess.
public struct PINVerifier {
    /// The outcome of one check.
    public enum Outcome {
        /// Right PIN; `vaultKey` is the user's vault data key (DEK), unwrapped with the
        /// same argon2 output, or nil if the user has no vault.
        case success(vaultKey: SecretBytes?)
        /// Wrong PIN; the tally now stands at `status`.
        case incorrect(LockoutStatus)
        /// A wrong PIN already counted in this run; nothing was counted again.
        case repeatedIncorrect(LockoutStatus)
        /// Refused without checking: the tally is delayed or disabled.
        case locked(LockoutStatus)
        /// The user has no PIN; a dummy argon2 ran so the time spent matches a real check.
        case notEnrolled
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

    /// Checks `pin` for `user` as described above.
    ///
    /// Callers that prompt should use `check(_:pin:)`, which refuses a locked PIN and
    /// skips a user without one before asking.
    ///
    /// `whileLocked` runs after a successful check, still under the lock, with the
    /// credential and the argon2 output; a credential it changes is written back.
    public func verify(_ pin: SecretBytes, for user: UserName,
                       whileLocked: ((inout CredentialRecord, SecretBytes) throws -> Void)? = nil) throws -> Outcome {
        let pepper = try store.pepper()
        let policy = store.configuration.lockout
        return try store.withExclusiveLock(for: user) {
            guard var credential = try store.credential(for: user) else {
                try spendEquivalentTime(pin, user: user)
                return .notEnrolled
            }
            var tally = try store.lockout(for: user)
            // A process killed after counting the wipe_after-th failure erases the key here.
            try wipeVaultKeyIfDue(&credential, failures: tally.failures)
            let before = policy.status(of: tally, at: clock.now())
            guard before.allowsAttempt else { return .locked(before) }

            let tag = PINKeys.guessTag(pin: pin, user: user, salt: credential.salt, pepper: pepper)
            if tally.seenGuesses.contains(tag) { return .repeatedIncorrect(before) }

            let previousFailure = tally.lastFailure
            tally.failures += 1
            tally.lastFailure = clock.now()
            try store.write(tally, for: user)

            argon2Observer?()
            let master = try PINKeys.master(pin: pin, user: user, salt: credential.salt, pepper: pepper,
                                            parameters: credential.parameters)
            let matches = credential.verifier.withUnsafeBytes { PINKeys.verifier(master: master).constantTimeEquals($0) }
            if matches {
                tally.failures = 0
                tally.seenGuesses = []
                tally.lastFailure = previousFailure
                tally.lastSuccess = clock.now().wallSeconds
                try store.write(tally, for: user)
                if let whileLocked {
                    let before = credential
                    try whileLocked(&credential, master)
                    if credential != before { try store.write(credential) }
                }
                return .success(vaultKey: credential.vaultKey.flatMap { VaultKey.unwrap($0, master: master, user: user) })
            }
            tally.seenGuesses.append(tag)
            try store.write(tally, for: user)
            try wipeVaultKeyIfDue(&credential, failures: tally.failures)
            return .incorrect(policy.status(of: tally, at: clock.now()))
        }
    }

    /// `wipe_after=N`: once N consecutive failures are counted, the PIN-wrapped vault key
    /// is erased (the iOS "Erase Data" option); only the recovery key can open the vault.
    private func wipeVaultKeyIfDue(_ credential: inout CredentialRecord, failures: Int) throws {
        guard let limit = store.configuration.wipeAfter, failures >= limit, credential.vaultKey != nil else { return }
        credential.vaultKey = nil
        try store.write(credential)
    }

    /// Runs argon2 with the configured parameters on a random salt and a random pepper,
    /// between two decoy tally writes, so a user without a PIN (or an unknown user) costs
    /// the same time as a wrong PIN. The writes are skipped where the state is out of
    /// reach, so an unprivileged caller can do it too.
    public func spendEquivalentTime(_ pin: SecretBytes, user: UserName) throws {
        // The same writes as a counted wrong PIN: one before argon2, one after. Best effort:
        // a caller without access to the state (the module without root) has no writes to
        // match, since its real checks go through the helper.
        try? store.writeDecoyTally()
        argon2Observer?()
        _ = try PINKeys.master(pin: pin, user: user, salt: try randomSalt(), pepper: try Pepper.generate(),
                               parameters: store.configuration.kdf)
        try? store.writeDecoyTally()
    }
}

/// 16 random bytes for a new record's salt.
func randomSalt() throws -> [UInt8] {
    try SecretBytes.random(count: Argon2id.saltLength).withUnsafeBytes { Array($0) }
}
