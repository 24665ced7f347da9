// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import SecureRoomCore

/// PINVerifier over real files in a temporary root-owned directory, with a clock the
/// test moves.
final class VerifierTests: XCTestCase {
    final class ManualClock: Clock, @unchecked Sendable {
        var instant = Instant(
            wallSeconds: 1_795_000_000, bootID: String(repeating: "d", count: 32),
            bootNanoseconds: 1_000_000_000_000)
        func now() -> Instant { instant }
        func advance(_ seconds: Int64) {
            instant.wallSeconds += seconds
            instant.bootNanoseconds += UInt64(seconds) * 1_000_000_000
        }
    }

    private var root = ""
    private var store: StateStore!
    private let clock = ManualClock()
    private let user = try! UserName("alice")

    override func setUpWithError() throws {
        var template = Array("/tmp/secureroom-core.XXXXXX".utf8CString)
        root = String(cString: try XCTUnwrap(mkdtemp(&template)))
        var configuration = Configuration()
        try configuration.apply("dir=\(root)/state")
        configuration.kdf = KDFParameters(memoryKiB: 64, iterations: 1, lanes: 1)
        configuration.allowsBelowFloor = true  // thousands of checks; docs/SECURITY.md §1.4
        store = StateStore(configuration: configuration)
        try store.initialize()
        try PINAdministration(store: store, clock: clock).setPIN(try pin("7391"), for: user)
    }

    override func tearDownWithError() throws { try FileManager.default.removeItem(atPath: root) }

    private func pin(_ text: String) throws -> SecretBytes {
        try Array(text.utf8).withUnsafeBytes { try PINFormat.fourDigits.pin(from: $0) }
    }

    func testRightAndWrongPIN() throws {
        let verifier = PINVerifier(store: store, clock: clock)
        guard case .success(let success) = try verifier.verify(try pin("7391"), for: user) else { return XCTFail() }
        XCTAssertNil(success.vaultKey, "no vault set up")
        guard case .incorrect(let status, _) = try verifier.verify(try pin("7392"), for: user) else { return XCTFail() }
        XCTAssertEqual(status, .open(failures: 1, untilDelay: NextDelay(attempts: 4, delay: 60), untilDisabled: 8))
    }

    func testVaultKeySurvivesAPINChangeAndOnlyTheNewPINOpensIt() throws {
        let authority = LocalPINAuthority(store: store, clock: clock)
        let (outcome, recoveryKey) = try authority.setUpVault(user, replace: false) { try pin("7391") }
        guard case .success(let createdSuccess) = outcome, let created = createdSuccess.vaultKey, let recoveryKey else {
            return XCTFail("\(outcome)")
        }
        XCTAssertThrowsError(try authority.setUpVault(user, replace: false) { try pin("7391") }) {
            XCTAssertEqual($0 as? SecureRoomError, .vaultKeyExists(user: "alice", recoverable: false))
        }
        guard case .success = try authority.change(user, current: { try pin("7391") }, new: { _ in try pin("4739") })
        else { return XCTFail() }
        let verifier = PINVerifier(store: store, clock: clock)
        guard case .success(let unlockedSuccess) = try verifier.verify(try pin("4739"), for: user),
            let unlocked = unlockedSuccess.vaultKey
        else { return XCTFail() }
        XCTAssertTrue(unlocked.constantTimeEquals(created))
        guard case .incorrect = try verifier.verify(try pin("7391"), for: user) else { return XCTFail() }
        let recovered = try PINAdministration(store: store, clock: clock).recoverVaultKey(for: user, with: recoveryKey)
        XCTAssertTrue(recovered.constantTimeEquals(created))
    }

    func testTheFailureIsOnDiskBeforeArgon2Runs() throws {
        var verifier = PINVerifier(store: store, clock: clock)
        var failuresSeenByArgon2: [Int] = []
        let store = self.store!
        verifier.argon2Observer = { failuresSeenByArgon2.append((try? store.lockout(for: self.user).counted) ?? -1) }
        _ = try verifier.verify(try pin("1111"), for: user)
        _ = try verifier.verify(try pin("2222"), for: user)
        _ = try verifier.verify(try pin("7391"), for: user)
        XCTAssertEqual(failuresSeenByArgon2, [1, 2, 3], "each attempt is counted and durable before argon2 runs")
        XCTAssertEqual(try store.lockout(for: user).failures, 0, "and cleared by the success")
    }

    func testLockedAttemptsCostNoArgon2AndTheRepeatedGuessNoAttempt() throws {
        var verifier = PINVerifier(store: store, clock: clock)
        var runs = 0
        verifier.argon2Observer = { runs += 1 }
        for guess in ["1111", "2222", "3333", "4444", "5555"] { _ = try verifier.verify(try pin(guess), for: user) }
        XCTAssertEqual(runs, 5)
        for _ in 0..<100 {
            guard case .locked(.delayed) = try verifier.verify(try pin("7391"), for: user) else { return XCTFail() }
        }
        XCTAssertEqual(runs, 5, "a flood against a locked account runs no argon2")
        clock.advance(60)
        guard case .repeatedIncorrect = try verifier.verify(try pin("5555"), for: user) else { return XCTFail() }
        XCTAssertEqual(runs, 6, "a repeat is recognised by its argon2 output (FORMAT.md §2)")
        XCTAssertEqual(try store.lockout(for: user).failures, 5)
        XCTAssertEqual(try store.lockout(for: user).pending, [], "and its pending attempt is resolved, not counted")
        guard case .success = try verifier.verify(try pin("7391"), for: user) else { return XCTFail() }
    }

    func testTheCapHoldsUntilReset() throws {
        let verifier = PINVerifier(store: store, clock: clock)
        for index in 0..<9 {
            clock.advance(3600)
            _ = try verifier.verify(try pin(String(format: "%04d", 1000 + index)), for: user)
        }
        clock.advance(86_400 * 365)
        guard case .locked(.disabled(9)) = try verifier.verify(try pin("7391"), for: user) else { return XCTFail() }
        try PINAdministration(store: store, clock: clock).resetLockout(for: user)
        guard case .success = try verifier.verify(try pin("7391"), for: user) else { return XCTFail() }
    }

    func testUnknownUsersSpendAnArgon2Run() throws {
        var verifier = PINVerifier(store: store, clock: clock)
        var runs = 0
        verifier.argon2Observer = { runs += 1 }
        guard case .notEnrolled = try verifier.verify(try pin("7391"), for: try UserName("bob")) else {
            return XCTFail()
        }
        XCTAssertEqual(runs, 1)
    }

    func testChangeKeepsTheOldPINWhenTheCurrentOneIsWrong() throws {
        let authority = LocalPINAuthority(store: store, clock: clock)
        var asked = false
        guard
            case .incorrect = try authority.change(
                user, current: { try self.pin("0000") },
                new: { _ in
                    asked = true
                    return try self.pin("5826")
                })
        else { return XCTFail() }
        XCTAssertFalse(asked, "the new PIN is not even asked for")
        guard
            case .success = try authority.change(
                user, current: { try self.pin("7391") }, new: { _ in try self.pin("5826") })
        else { return XCTFail() }
        let verifier = PINVerifier(store: store, clock: clock)
        guard case .success = try verifier.verify(try pin("5826"), for: user) else { return XCTFail() }
        guard case .incorrect = try verifier.verify(try pin("7391"), for: user) else { return XCTFail() }
    }

    /// Regression (third red team, F3): a change that keeps the PIN is refused, even when
    /// the caller's reader let it through, and an expired PIN stays expired.
    func testTheCurrentPINIsNeverItsOwnReplacement() throws {
        try PINAdministration(store: store, clock: clock).expire(user)
        let authority = LocalPINAuthority(store: store, clock: clock)
        var handedOver: [UInt8] = []
        XCTAssertThrowsError(
            try authority.change(
                user, current: { try self.pin("7391") },
                new: { current in
                    handedOver = current.withUnsafeBytes { Array($0) }
                    return try self.pin("7391")
                })
        ) { error in
            XCTAssertEqual(error as? SecureRoomError, .pinRejected("it is the current PIN; choose a different one"))
        }
        XCTAssertEqual(handedOver, Array("7391".utf8), "the reader is given the current PIN to refuse it itself")
        XCTAssertNotNil(try store.credential(for: user)?.mustChange, "still expired")
        guard
            case .success = try authority.change(
                user, current: { try self.pin("7391") }, new: { _ in try self.pin("5826") })
        else { return XCTFail() }
        XCTAssertNil(try store.credential(for: user)?.mustChange)
    }

    /// A lock-free read (the status shown before prompting) racing with writers that
    /// replace the record by rename: every read gets a whole record, old or new. A read
    /// that opened the old file just before the rename sees it with 0 links — that is a
    /// replaced file, not a hard-link attack (regression: one CI run got
    /// PAM_AUTHINFO_UNAVAIL from exactly this).
    func testReadsRacingWithReplacementsAlwaysSucceed() throws {
        let writes = 3_000
        var readErrors: [String] = []
        // The writer's error, read only after `done` (the semaphore orders the two threads).
        final class WriteError: @unchecked Sendable { var text: String? }
        let writeError = WriteError()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            defer { done.signal() }
            for count in 1...writes {
                var tally = LockoutRecord()
                tally.failedAt = Array(repeating: 1_795_000_000, count: count % 7)
                tally.lastFailure = self.clock.now()
                do { try self.store.write(tally, for: self.user) } catch {
                    writeError.text = "write: \(error)"
                    return
                }
            }
        }
        var reads = 0
        while done.wait(timeout: .now()) == .timedOut {
            do { _ = try store.lockout(for: user) } catch { readErrors.append("\(error)") }
            reads += 1
        }
        XCTAssertNil(writeError.text)
        XCTAssertGreaterThan(reads, 100)
        XCTAssertEqual(readErrors, [], "\(readErrors.count) of \(reads) reads failed")
    }

    /// An administrator sets a new PIN while the user is typing their new one: the
    /// user's change must not overwrite it (nor resurrect a removed PIN).
    func testAChangeOvertakenByAnAdministratorWritesNothing() throws {
        let authority = LocalPINAuthority(store: store, clock: clock)
        XCTAssertThrowsError(
            try authority.change(
                user, current: { try self.pin("7391") },
                new: { _ in
                    try PINAdministration(store: self.store, clock: self.clock).setPIN(
                        try self.pin("4826"), for: self.user)
                    return try self.pin("5826")
                })
        ) { error in
            XCTAssertEqual(error as? SecureRoomError, .changedConcurrently(user: "alice"))
        }
        let verifier = PINVerifier(store: store, clock: clock)
        guard case .success = try verifier.verify(try pin("4826"), for: user) else {
            return XCTFail("the admin's PIN was lost")
        }
    }

    /// A holder that never lets go of a user's lock (a stopped process) makes others give
    /// up with `busy` after the patience, instead of hanging logins and administrators.
    func testALockHeldForeverMakesOthersGiveUp() throws {
        let path = root + "/state/users/held.lock"
        let holder = try FileDescriptor.open(path, in: nil, flags: O_RDWR | O_CREAT, displayPath: path)
        try holder.lockExclusively(waitingAtMost: 1)
        let waiter = try FileDescriptor.open(path, in: nil, flags: O_RDWR, displayPath: path)
        XCTAssertThrowsError(try waiter.lockExclusively(waitingAtMost: 1)) { error in
            XCTAssertEqual(
                error as? SecureRoomError, .busy(path: path, seconds: 1, holder: "pid \(getpid()) (\(Self.command))"),
                "the message names the holder")
        }
        withExtendedLifetime(holder) {}
    }

    /// No lock is held while argon2 runs: from inside a check's argon2 run, the same
    /// user's next check and an administrator's reset both go through at once (with the
    /// lock held they would wait for it, here in the same process, and give up `busy`).
    func testNoLockIsHeldWhileArgon2Runs() throws {
        var verifier = PINVerifier(store: store, clock: clock)
        var nested: [String] = []
        var inside = false
        verifier.argon2Observer = {
            guard !inside else { return }
            inside = true
            let started = Deadline(millisecondsFromNow: 5_000)
            let plain = PINVerifier(store: self.store, clock: self.clock)
            do {
                if case .incorrect = try plain.verify(try self.pin("2222"), for: self.user) { nested.append("check") }
                try PINAdministration(store: self.store, clock: self.clock).resetLockout(for: self.user)
                nested.append("reset")
            } catch { nested.append("\(error)") }
            XCTAssertFalse(started.hasPassed, "the nested check and reset waited")
        }
        guard case .incorrect = try verifier.verify(try pin("1111"), for: user) else { return XCTFail() }
        XCTAssertEqual(nested, ["check", "reset"])
        // The reset came after the outer attempt was counted: the outer wrong PIN counts
        // nothing (a reset is never undone by a check in flight).
        XCTAssertEqual(try store.lockout(for: user).counted, 0)
    }

    /// An attempt whose process died after counting stays counted (a pending entry),
    /// delays the next attempt like a failure, and a success clears it.
    func testAnAbandonedAttemptStaysCounted() throws {
        var tally = try store.lockout(for: user)
        for index in 0..<5 {
            tally.pending.append(.init(id: Array(repeating: UInt8(index), count: 8), counted: clock.now()))
        }
        try store.write(tally, for: user)
        let verifier = PINVerifier(store: store, clock: clock)
        guard case .locked(.delayed(60, 5)) = try verifier.verify(try pin("7391"), for: user) else { return XCTFail() }
        clock.advance(60)
        guard case .success = try verifier.verify(try pin("7391"), for: user) else { return XCTFail() }
        XCTAssertEqual(
            try store.lockout(for: user),
            {
                var cleared = LockoutRecord()
                cleared.lastSuccess = clock.now().wallSeconds
                return cleared
            }())
    }

    /// A PIN set by an administrator while a check's argon2 runs: the check was against
    /// the old PIN and neither succeeds nor counts.
    func testAPINReplacedDuringTheCheckIsNotUnlockedByTheOldOne() throws {
        var verifier = PINVerifier(store: store, clock: clock)
        verifier.argon2Observer = {
            try? PINAdministration(store: self.store, clock: self.clock).setPIN(try! self.pin("4826"), for: self.user)
        }
        guard case .incorrect(let status, _) = try verifier.verify(try pin("7391"), for: user) else { return XCTFail() }
        XCTAssertEqual(status.failures, 0)
    }

    /// Raising the configured argon2 cost reaches an existing record at its next
    /// successful check: same PIN, new parameters and salt, the vault key re-wrapped, the
    /// recovery record untouched, the creation time kept.
    func testARecordIsRehashedAtTheNextSuccessfulCheck() throws {
        let authority = LocalPINAuthority(store: store, clock: clock)
        guard
            case .success(let dekSuccess) = try authority.setUpVault(user, replace: false, pin: { try pin("7391") })
                .outcome, let dek = dekSuccess.vaultKey
        else { return XCTFail() }
        let old = try XCTUnwrap(try store.credential(for: user))
        let recovery = try store.recovery(for: user)
        var configuration = store.configuration
        configuration.kdf = KDFParameters(memoryKiB: 128, iterations: 2, lanes: 1)
        let raised = StateStore(configuration: configuration)
        guard case .incorrect = try PINVerifier(store: raised, clock: clock).verify(try pin("1111"), for: user) else {
            return XCTFail()
        }
        XCTAssertEqual(try raised.credential(for: user), old, "a wrong PIN changes nothing")
        guard
            case .success(let unlockedSuccess) = try PINVerifier(store: raised, clock: clock).verify(
                try pin("7391"), for: user), let unlocked = unlockedSuccess.vaultKey
        else { return XCTFail() }
        XCTAssertTrue(unlocked.constantTimeEquals(dek))
        let new = try XCTUnwrap(try raised.credential(for: user))
        XCTAssertEqual(new.parameters, configuration.kdf)
        XCTAssertNotEqual(new.salt, old.salt)
        XCTAssertEqual(new.created, old.created)
        XCTAssertEqual(try raised.recovery(for: user), recovery)
        guard
            case .success(let againSuccess) = try PINVerifier(store: raised, clock: clock).verify(
                try pin("7391"), for: user), let again = againSuccess.vaultKey
        else { return XCTFail("the re-derived record does not verify") }
        XCTAssertTrue(again.constantTimeEquals(dek))
    }

    /// A configuration whose argon2 cost is lower than a record's never reaches it: a
    /// success leaves the record as it was (a re-derivation never makes a PIN cheaper to
    /// search); only a lower memory or fewer passes count as lower, and a raise in one
    /// with a drop in the other is no raise.
    func testALoweredCostNeverReachesARecord() throws {
        var made = store.configuration
        made.kdf = KDFParameters(memoryKiB: 64, iterations: 2, lanes: 1)
        try PINAdministration(store: StateStore(configuration: made), clock: clock).setPIN(try pin("7391"), for: user)
        let old = try XCTUnwrap(try store.credential(for: user))
        for lowered in [
            KDFParameters(memoryKiB: 32, iterations: 2, lanes: 1),
            KDFParameters(memoryKiB: 128, iterations: 1, lanes: 1),
        ] {
            var configuration = store.configuration
            configuration.kdf = lowered
            let cheaper = StateStore(configuration: configuration)
            guard case .success = try PINVerifier(store: cheaper, clock: clock).verify(try pin("7391"), for: user)
            else { return XCTFail() }
            XCTAssertEqual(try cheaper.credential(for: user), old, "\(lowered)")
            XCTAssertFalse(lowered.raises(old.parameters))
        }
    }

    private static var command: String {
        (try? String(contentsOfFile: "/proc/self/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines) ?? "?"
    }

    /// A typo followed by the right PIN within 5 minutes is forgiven; failures the user's
    /// success did not follow closely keep counting toward `deny` for a year, so guesses
    /// made between two of the user's logins add up (docs/SECURITY.md §1.1).
    func testFailuresNotFollowedByTheRightPINWithinFiveMinutesCountForAYear() throws {
        let verifier = PINVerifier(store: store, clock: clock)
        _ = try verifier.verify(try pin("1111"), for: user)
        clock.advance(60)
        guard case .success = try verifier.verify(try pin("7391"), for: user) else { return XCTFail() }
        XCTAssertEqual(try store.lockout(for: user).unforgiven, [], "a typo 1 minute before the right PIN is forgiven")

        for guess in ["2222", "3333", "4444"] { _ = try verifier.verify(try pin(guess), for: user) }
        clock.advance(3600)
        guard case .success = try verifier.verify(try pin("7391"), for: user) else { return XCTFail() }
        let tally = try store.lockout(for: user)
        XCTAssertEqual(tally.unforgiven.count, 3)
        XCTAssertEqual(tally.failures, 0)
        XCTAssertEqual(
            try verifier.status(of: user),
            .open(failures: 3, untilDelay: NextDelay(attempts: 5, delay: 60), untilDisabled: 6),
            "the delays start again, the budget does not")
        // Five more wrong guesses an hour apart, each run ended by a late success: 8, then disabled at 9.
        for index in 0..<5 {
            _ = try verifier.verify(try pin(String(format: "%04d", 5000 + index)), for: user)
            clock.advance(3600)
            guard case .success = try verifier.verify(try pin("7391"), for: user) else {
                return XCTFail("round \(index)")
            }
        }
        XCTAssertEqual(try verifier.status(of: user)?.failures, 8)
        _ = try verifier.verify(try pin("6000"), for: user)
        guard case .locked(.disabled(9)) = try verifier.verify(try pin("7391"), for: user) else { return XCTFail() }
        // A year later the old ones no longer count; the current run's one still does.
        clock.advance(LockoutPolicy.unforgivenLifetime)
        XCTAssertEqual(try verifier.status(of: user)?.failures, 1)
        try PINAdministration(store: store, clock: clock).resetLockout(for: user)
        XCTAssertEqual(try store.lockout(for: user).unforgiven, [], "a reset clears them")
    }

    func testInitializeRefusesToReplaceThePepper() throws {
        XCTAssertThrowsError(try store.initialize()) { error in
            XCTAssertEqual(error as? SecureRoomError, .alreadyInitialized(path: root + "/state/pepper"))
        }
    }
}
