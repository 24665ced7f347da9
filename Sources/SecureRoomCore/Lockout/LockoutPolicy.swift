// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// The lockout rule (docs/DESIGN.md §4, secureroom.conf(5) NOTES), all its numbers and
/// every change it makes to a tally: after a number of consecutive failures the next
/// attempt must wait a delay; at `deny` failures the PIN is disabled until a success
/// elsewhere or an administrator's reset; a success forgives the failures of the typo
/// window (`forgivenWindow`) and keeps the rest for `unforgivenLifetime`. The tally
/// itself (`LockoutRecord`) is data and its text form; `LockoutProtocol` runs these
/// changes under the user's lock.
public struct LockoutPolicy: Equatable, Sendable {
    /// From `failures` consecutive failures on, wait `delay` seconds before the next attempt.
    public struct Step: Equatable, Sendable {
        /// The failure count at which this delay starts.
        public var failures: Int
        /// Seconds to wait after the latest failure.
        public var delay: Int64
    }

    /// Consecutive failures after which the PIN is disabled (the guess budget).
    public var deny: Int
    /// Delays in increasing order of `failures`.
    public var schedule: [Step]

    /// How long before a success its run's failures are forgiven: 5 minutes (the typo
    /// window).
    public static let forgivenWindow: Int64 = 300
    /// How long an unforgiven failure counts: 365 days.
    public static let unforgivenLifetime: Int64 = 365 * 86_400

    /// The accepted range for `deny`.
    public static let denyRange = 1...LockoutRecord.maximumSeenGuesses

    /// iOS's schedule, one attempt shorter: attempts 1–4 free, then 1 min, 5 min, 15 min,
    /// 1 h; disabled at 9, where the built-in blocklist keeps an attacker who tries the
    /// most common allowed PINs under 1% of accounts (docs/SECURITY.md §1.1).
    public static let defaults = LockoutPolicy(
        validDeny: 9,
        schedule: [
            Step(failures: 5, delay: 60), Step(failures: 6, delay: 300),
            Step(failures: 7, delay: 900), Step(failures: 8, delay: 3600),
        ])

    /// Creates a policy; throws if `deny` or the schedule is out of order or range.
    public init(deny: Int, schedule: [Step]) throws {
        guard Self.denyRange.contains(deny) else {
            throw SecureRoomError.invalidConfiguration("deny=\(deny) outside \(Self.denyRange)")
        }
        for (index, step) in schedule.enumerated() {
            guard step.failures >= 1, step.delay >= 0, step.delay <= 31 * 86_400,
                index == 0 || schedule[index - 1].failures < step.failures
            else { throw SecureRoomError.invalidConfiguration("schedule must increase: failures:delay,...") }
        }
        self.deny = deny
        self.schedule = schedule
    }

    private init(validDeny deny: Int, schedule: [Step]) {
        self.deny = deny
        self.schedule = schedule
    }

    /// The delay that follows `failures` consecutive failures.
    public func delay(afterFailures failures: Int) -> Int64 {
        schedule.last(where: { $0.failures <= failures })?.delay ?? 0
    }

    /// Where a tally stands at `now`.
    /// The delays follow the current run (its failures and pending attempts, which count
    /// as failures) and run from its latest counted attempt; `deny` counts the run plus
    /// the failures of the past year that no success forgave (LockoutRecord).
    public func status(of record: LockoutRecord, at now: Instant) -> LockoutStatus {
        let run = record.counted
        let failures = run + unforgiven(in: record, at: now.wallSeconds)
        if failures >= deny { return .disabled(failures: failures) }
        let wait = delay(afterFailures: run)
        if wait > 0 {
            let remaining = record.attemptInstants.map { wait - now.seconds(since: $0) }.max() ?? 0
            if remaining > 0 { return .delayed(seconds: remaining, failures: failures) }
        }
        return .open(
            failures: failures, untilDelay: nextDelay(after: run, left: deny - failures),
            untilDisabled: deny - failures)
    }

    /// Attempts left before the next longer delay starts, and that delay (nil if none
    /// comes before the `left` attempts that disable the PIN).
    private func nextDelay(after run: Int, left: Int) -> NextDelay? {
        guard let next = schedule.first(where: { $0.failures > run && $0.failures - run < left && $0.delay > 0 }),
            next.delay > delay(afterFailures: run)
        else { return nil }
        return NextDelay(attempts: next.failures - run, delay: next.delay)
    }

    /// Parses a schedule: comma-separated `FAILURES:DELAY`, DELAY in seconds or with an
    /// `s`, `m`, `h` or `d` suffix (`5:1m,6:5m,7:15m,8:1h`). Empty means no delays.
    public static func parseSchedule(_ text: String) throws -> [Step] {
        guard !text.isEmpty else { return [] }
        return try text.split(separator: ",", omittingEmptySubsequences: false).map { item in
            let parts = item.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let failures = RecordText.decimal(parts[0], as: Int.self),
                let delay = parseDuration(parts[1])
            else {
                throw SecureRoomError.invalidConfiguration(
                    "schedule entry \(UserName.quoted(String(item))) is not FAILURES:DELAY")
            }
            return Step(failures: failures, delay: delay)
        }
    }

    /// Renders a schedule in the form `parseSchedule` reads.
    public static func render(_ schedule: [Step]) -> String {
        schedule.map { "\($0.failures):\(DurationText.compact($0.delay))" }.joined(separator: ",")
    }

    /// `N`, `Ns`, `Nm`, `Nh` or `Nd` in seconds; nil if malformed or too large.
    static func parseDuration(_ text: Substring) -> Int64? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        if let last = text.last, let unit = units[last] {
            return RecordText.decimal(text.dropLast(), as: Int64.self).flatMap {
                $0.multipliedReportingOverflow(by: unit).overflow ? nil : $0 * unit
            }
        }
        return RecordText.decimal(text, as: Int64.self)
    }

    /// The unforgiven failures of `record` that still count at `wallSeconds`.
    public func unforgiven(in record: LockoutRecord, at wallSeconds: Int64) -> Int {
        record.unforgiven.filter { wallSeconds - $0 < Self.unforgivenLifetime }.count
    }

    /// Step 1 of a check: counts `attempt` as pending in `record`, or returns the status
    /// that refuses it (delayed or disabled) and changes nothing.
    public func admit(_ attempt: LockoutRecord.PendingAttempt, into record: inout LockoutRecord, at now: Instant)
        -> LockoutStatus?
    {
        let before = status(of: record, at: now)
        guard before.allowsAttempt else { return before }
        record.pending.append(attempt)
        return nil
    }

    /// Step 3 begins here: removes `attempt` from the pending ones; false if it was no
    /// longer there (a reset or a success took it while argon2 ran).
    public func resolve(_ attempt: LockoutRecord.PendingAttempt, in record: inout LockoutRecord) -> Bool {
        let index = record.pending.firstIndex { $0.id == attempt.id }
        if let index { record.pending.remove(at: index) }
        return index != nil
    }

    /// Counts `attempt`, already resolved, as a wrong guess with `tag`; false (and nothing
    /// counted) if the same guess is already in this run. Without a tag (a PIN bound to its
    /// own counter in the TPM) every wrong guess counts.
    public func countWrongGuess(
        _ attempt: LockoutRecord.PendingAttempt, tag: [UInt8]?, in record: inout LockoutRecord
    ) -> Bool {
        if let tag, record.seenGuesses.contains(tag) { return false }
        record.failedAt.append(attempt.counted.wallSeconds)
        record.lastFailure = attempt.counted
        if let tag { record.seenGuesses.append(tag) }
        return true
    }

    /// Records a success at `now`: the run ends; its failures and other pending attempts
    /// counted within `forgivenWindow` before `now` are forgiven, the rest stay counted
    /// (`unforgiven`) for `unforgivenLifetime`. Returns how many were forgiven and how
    /// many were not.
    @discardableResult
    public func recordSuccess(in record: inout LockoutRecord, at now: Int64) -> (forgiven: Int, unforgiven: Int) {
        let run = record.failedAt + record.pending.map(\.counted.wallSeconds)
        let kept = run.filter { now - $0 > Self.forgivenWindow }
        record.unforgiven = Array(
            (record.unforgiven.filter { now - $0 < Self.unforgivenLifetime } + kept)
                .suffix(LockoutRecord.maximumSeenGuesses))
        record.failedAt = []
        record.pending = []
        record.seenGuesses = []
        record.lastSuccess = now
        return (run.count - kept.count, kept.count)
    }

    /// Records that a wrong PIN of this account was put to the TPM at `now` (the newest 100
    /// are kept; `TPMShare` reads the recent ones).
    public func recordChipFailure(in record: inout LockoutRecord, at now: Int64) {
        record.chipFailedAt = Array((record.chipFailedAt + [now]).suffix(LockoutRecord.maximumSeenGuesses))
    }

    /// An administrator's reset, or a successful password (`authsucc`): nothing counts
    /// (toward `deny`; the chip's failures stay, as on the chip).
    public func clear(_ record: inout LockoutRecord) {
        record.failedAt = []
        record.pending = []
        record.seenGuesses = []
        record.unforgiven = []
    }
}
