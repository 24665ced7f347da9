/// Setting, changing and removing PINs, and resetting tallies: the operations behind
/// `secureroom set/reset`, and the last step of a PIN change (`PINAuthority.change`).
public struct Enrollment {
    /// The state.
    public let store: StateStore
    /// The time source.
    public let clock: any Clock

    /// Enrollment over `store`.
    public init(store: StateStore, clock: any Clock = SystemClock()) {
        self.store = store
        self.clock = clock
    }

    /// Gives `user` the PIN `pin` (already validated and policy-checked by the caller):
    /// a new salt, the configured argon2 parameters, and a fresh tally (keeping
    /// `last-success`). With `replacing`, the write happens only if the user's credential
    /// still has that salt — a PIN change must not overwrite an administrator's `set`,
    /// `reset --remove-pin` or another change made since the current PIN was checked.
    public func setPIN(_ pin: SecretBytes, for user: UserName, replacing expectedSalt: [UInt8]? = nil) throws {
        let pepper = try store.pepper()
        let parameters = store.configuration.kdf
        let salt = try randomSalt()
        let master = try PINKeys.master(pin: pin, user: user, salt: salt, pepper: pepper, parameters: parameters)
        let verifier = PINKeys.verifier(master: master).withUnsafeBytes { Array($0) }
        let record = CredentialRecord(user: user, parameters: parameters, salt: salt, verifier: verifier,
                                      digits: pin.count, created: clock.now().wallSeconds)
        try store.withExclusiveLock(for: user) {
            if let expectedSalt, try store.credential(for: user)?.salt != expectedSalt {
                throw SecureRoomError.changedConcurrently(user: user.rawValue)
            }
            var tally = LockoutRecord()
            tally.lastSuccess = try store.lockout(for: user).lastSuccess
            try store.write(record)
            try store.write(tally, for: user)
        }
    }

    /// Clears the user's tally (an administrator's unlock). Keeps `last-success`.
    public func resetLockout(for user: UserName) throws {
        try store.withExclusiveLock(for: user) {
            var tally = try store.lockout(for: user)
            tally.failures = 0
            tally.seenGuesses = []
            try store.write(tally, for: user)
        }
    }

    /// Deletes the user's PIN and tally.
    public func removePIN(for user: UserName) throws {
        try store.withExclusiveLock(for: user) { try store.removeRecords(for: user) }
    }
}
