// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// The lockout schedule (docs/DESIGN.md §4, README "DEFAULTS AND WHY"): after a number of
/// consecutive failures the next attempt must wait a delay; at `deny` failures the PIN
/// is disabled until a success elsewhere or an administrator's reset.
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
        let failures = run + record.unforgiven(at: now.wallSeconds)
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
}

/// The next (longer) delay ahead of an open tally.
public struct NextDelay: Equatable, Sendable {
    /// Failures left before it starts.
    public var attempts: Int
    /// Its length in seconds.
    public var delay: Int64
}

/// Where a user's tally stands.
public enum LockoutStatus: Equatable, Sendable {
    /// Attempts are allowed; `untilDelay` is the next longer delay, if one comes before the cap.
    case open(failures: Int, untilDelay: NextDelay?, untilDisabled: Int)
    /// Attempts are refused for `seconds` more.
    case delayed(seconds: Int64, failures: Int)
    /// The guess budget is spent: only a reset (or a success by other means) helps.
    case disabled(failures: Int)

    /// Consecutive failures counted.
    public var failures: Int {
        switch self {
        case let .open(failures, _, _), let .delayed(_, failures), let .disabled(failures): return failures
        }
    }

    /// Whether an attempt may be made now.
    public var allowsAttempt: Bool {
        if case .open = self { return true }
        return false
    }
}

extension LockoutStatus: CustomStringConvertible {
    /// A compact description for log lines.
    public var description: String {
        switch self {
        case let .open(failures, _, left): return "\(failures) consecutive failures, \(left) before disabled"
        case let .delayed(seconds, failures): return "\(failures) consecutive failures, delayed \(seconds) s"
        case let .disabled(failures): return "disabled after \(failures) consecutive failures"
        }
    }
}

/// Human-readable durations: "1-minute", "4 min 10 s", "1 h".
public enum DurationText {
    /// "4 min 10 s", "1 h 5 min", "30 s".
    public static func spoken(_ seconds: Int64) -> String {
        let s = max(seconds, 1)
        let (hours, minutes, rest) = (s / 3600, s % 3600 / 60, s % 60)
        var parts: [String] = []
        if hours > 0 { parts.append("\(hours) h") }
        if minutes > 0 { parts.append("\(minutes) min") }
        if rest > 0 && hours == 0 { parts.append("\(rest) s") }
        return parts.joined(separator: " ")
    }

    /// "1-minute", "15-minute", "1-hour" (as in "a 1-minute delay"), in the user's language.
    public static func adjective(_ seconds: Int64) -> String {
        // TRANSLATORS: as in "a 15-minute delay" ("{count} attempts left before a {delay} delay.").
        if seconds % 3600 == 0 { return localized("{count}-hour", plural: "{count}-hour", count: Int(seconds / 3600)) }
        // TRANSLATORS: as in "a 15-minute delay".
        if seconds % 60 == 0 { return localized("{count}-minute", plural: "{count}-minute", count: Int(seconds / 60)) }
        // TRANSLATORS: as in "a 30-second delay".
        return localized("{count}-second", plural: "{count}-second", count: Int(seconds))
    }

    /// "60" → "1m", "3600" → "1h", "90" → "90s".
    public static func compact(_ seconds: Int64) -> String {
        if seconds > 0 && seconds % 86_400 == 0 { return "\(seconds / 86_400)d" }
        if seconds > 0 && seconds % 3600 == 0 { return "\(seconds / 3600)h" }
        if seconds > 0 && seconds % 60 == 0 { return "\(seconds / 60)m" }
        return "\(seconds)s"
    }
}
