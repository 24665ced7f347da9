// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// The lockout protocol (docs/FORMAT.md §4, DESIGN.md §4), written once for every kind of
/// check (`PINCheck`). One check is three steps on one tally file; its lock is held for
/// the first and the last only, never across argon2 or the TPM, so a stopped or slow
/// check delays nobody:
///
/// 1. `admit`: under the lock, refuse at once (no argon2) while the tally is delayed or
///    disabled; otherwise count the attempt as pending, durably.
/// 2. `test`: holding nothing, the kind of check tests the guess. If it throws (a TPM that
///    did not do its part), the attempt is withdrawn: nothing was tested.
/// 3. `settle`: under the lock again, against the tally as it is now: the attempt is
///    resolved, a chip failure recorded whatever else happened, and the caller decides
///    the outcome; a wrong guess is counted by `countWrongGuess`.
///
/// A process killed or stopped between 1 and 3 leaves its attempt counted: never a free
/// guess. A reset or a success during step 2 removes the pending attempt, and a wrong
/// guess then counts nothing, so a reset is never undone.
struct LockoutProtocol {
    /// The state.
    let store: StateStore
    /// The time source.
    let clock: any Clock
    /// The tally the check counts on.
    let file: TallyFile
    /// This check's attempt, counted in step 1.
    let attempt: LockoutRecord.PendingAttempt

    /// One check on `file`, with a new attempt.
    init(store: StateStore, clock: any Clock, file: TallyFile) throws {
        self.store = store
        self.clock = clock
        self.file = file
        attempt = LockoutRecord.PendingAttempt(
            id: try SecretBytes.random(count: LockoutRecord.PendingAttempt.idLength).withUnsafeBytes { Array($0) },
            counted: clock.now())
    }

    /// What step 1 found.
    enum Admission<Subject> {
        /// `look` found nothing to check (the user's PIN is gone): nothing counted.
        case absent
        /// The tally refuses attempts now: nothing counted.
        case refused(LockoutStatus)
        /// The attempt is counted; `look`'s answer.
        case counted(Subject)
    }

    /// Step 1. `look` reads, under the lock, what the check is against (nil: nothing).
    func admit<Subject>(_ look: () throws -> Subject?) throws -> Admission<Subject> {
        try store.withExclusiveLock(on: file) {
            guard let subject = try look() else { return .absent }
            var tally = try store.lockout(at: file)
            if let refusal = store.configuration.lockout.admit(attempt, into: &tally, at: clock.now()) {
                return .refused(refusal)
            }
            try store.write(tally, at: file)
            return .counted(subject)
        }
    }

    /// Step 2.
    func test(_ check: any PINCheck, _ pin: SecretBytes) throws -> Guess {
        do {
            return try check.test(pin, seen: { try store.lockout(at: file).seenGuesses })
        } catch let error as SecureRoomError {
            try store.withExclusiveLock(on: file) {
                var tally = try store.lockout(at: file)
                if store.configuration.lockout.resolve(attempt, in: &tally) { try store.write(tally, at: file) }
            }
            throw error
        }
    }

    /// The tally during step 3, as `settle` hands it to its caller.
    final class OpenTally {
        /// The record; changes are written by `commit`, and at the end of step 3.
        var record: LockoutRecord
        /// Whether this check's attempt was still pending (no reset or success took it).
        let wasPending: Bool
        private var written: LockoutRecord
        private let write: (LockoutRecord) throws -> Void

        fileprivate init(
            record: LockoutRecord, written: LockoutRecord, wasPending: Bool,
            write: @escaping (LockoutRecord) throws -> Void
        ) {
            self.record = record
            self.written = written
            self.wasPending = wasPending
            self.write = write
        }

        /// Writes the record now if it changed since it was read or last written.
        func commit() throws {
            guard record != written else { return }
            try write(record)
            written = record
        }
    }

    /// Step 3: resolves the attempt, records the chip's failure, and lets `decide` say the
    /// outcome (it may `commit` first, before writing other records); whatever it left
    /// changed in the tally is written after it.
    func settle(_ guess: Guess, _ decide: (OpenTally) throws -> PINVerifier.Outcome) throws -> PINVerifier.Outcome {
        try store.withExclusiveLock(on: file) {
            let read = try store.lockout(at: file)
            var record = read
            let policy = store.configuration.lockout
            let wasPending = policy.resolve(attempt, in: &record)
            // A wrong guess the chip tested is the account's share of the chip's counter,
            // whatever else happened meanwhile (`TPMShare`).
            if guess.chipTested { policy.recordChipFailure(in: &record, at: clock.now().wallSeconds) }
            let tally = OpenTally(record: record, written: read, wasPending: wasPending) {
                try store.write($0, at: file)
            }
            let outcome = try decide(tally)
            try tally.commit()
            return outcome
        }
    }

    /// A wrong guess in step 3: counted, unless a reset or a success took the attempt
    /// while it was tested, or the same guess is already in the run (then not again).
    func countWrongGuess(_ guess: Guess, in tally: OpenTally) -> PINVerifier.Outcome {
        let policy = store.configuration.lockout
        guard tally.wasPending else { return .incorrect(policy.status(of: tally.record, at: clock.now())) }
        let counted = policy.countWrongGuess(attempt, tag: guess.tag, in: &tally.record)
        let status = policy.status(of: tally.record, at: clock.now())
        return counted ? .incorrect(status) : .repeatedIncorrect(status)
    }

    /// Where `tally` stands now.
    func status(of tally: OpenTally) -> LockoutStatus {
        store.configuration.lockout.status(of: tally.record, at: clock.now())
    }
}
