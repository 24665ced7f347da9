// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import XCTest

@testable import SecureRoomCore

final class LockoutPolicyTests: XCTestCase {
    private let boot = String(repeating: "b", count: 32)

    private func tally(failures: Int, at instant: Instant) -> LockoutRecord {
        var record = LockoutRecord()
        record.failedAt = Array(repeating: instant.wallSeconds, count: failures)
        record.lastFailure = instant
        return record
    }

    private func at(_ wall: Int64, boot: String? = nil, uptime: UInt64) -> Instant {
        Instant(wallSeconds: wall, bootID: boot ?? self.boot, bootNanoseconds: uptime * 1_000_000_000)
    }

    func testDefaultScheduleFollowsIOS() {
        let policy = LockoutPolicy.defaults
        XCTAssertEqual(policy.deny, 9)
        XCTAssertEqual((0...9).map { policy.delay(afterFailures: $0) }, [0, 0, 0, 0, 0, 60, 300, 900, 3600, 3600])
        let start = at(1000, uptime: 100)
        XCTAssertEqual(
            policy.status(of: tally(failures: 4, at: start), at: start),
            .open(failures: 4, untilDelay: NextDelay(attempts: 1, delay: 60), untilDisabled: 5))
        XCTAssertEqual(
            policy.status(of: tally(failures: 5, at: start), at: at(1030, uptime: 130)),
            .delayed(seconds: 30, failures: 5))
        XCTAssertTrue(policy.status(of: tally(failures: 5, at: start), at: at(1060, uptime: 160)).allowsAttempt)
        XCTAssertEqual(
            policy.status(of: tally(failures: 10, at: start), at: at(999_999, uptime: 999_999)),
            .disabled(failures: 10))
    }

    func testSettingTheClockBackOrForwardWithinABootChangesNothing() {
        let policy = LockoutPolicy.defaults
        let failed = tally(failures: 8, at: at(10_000, uptime: 500))
        // Wall clock moved forward a day, but only 10 minutes really passed: still locked.
        XCTAssertEqual(policy.status(of: failed, at: at(96_400, uptime: 1100)), .delayed(seconds: 3000, failures: 8))
        // Wall clock moved back: the delay still ends on time.
        XCTAssertTrue(policy.status(of: failed, at: at(0, uptime: 500 + 3600)).allowsAttempt)
    }

    func testAClockThatWentBackwardsAcrossARebootNeverUnlocksEarly() {
        let policy = LockoutPolicy.defaults
        let failed = tally(failures: 8, at: at(10_000, uptime: 5000))
        let afterReboot = at(9_000, boot: String(repeating: "c", count: 32), uptime: 10)
        XCTAssertEqual(policy.status(of: failed, at: afterReboot), .delayed(seconds: 3600, failures: 8))
        let later = at(10_000 + 3600, boot: String(repeating: "c", count: 32), uptime: 20)
        XCTAssertTrue(policy.status(of: failed, at: later).allowsAttempt)
    }

    func testSchedulesParseStrictly() throws {
        XCTAssertEqual(try LockoutPolicy.parseSchedule("5:1m,6:5m,7:15m,8:1h"), LockoutPolicy.defaults.schedule)
        XCTAssertEqual(try LockoutPolicy.parseSchedule("3:30,4:2d").map(\.delay), [30, 172_800])
        XCTAssertEqual(try LockoutPolicy.parseSchedule(""), [])
        for bad in ["5", "5:", ":1m", "5:1w", "5:-1", "a:1m", "5:1m,", "5:1m;6:2m", "1:99999999999999999999"] {
            XCTAssertThrowsError(try LockoutPolicy.parseSchedule(bad), bad)
        }
        XCTAssertThrowsError(try LockoutPolicy(deny: 10, schedule: try LockoutPolicy.parseSchedule("6:1m,5:2m")))
        XCTAssertThrowsError(try LockoutPolicy(deny: 0, schedule: []))
        XCTAssertEqual(LockoutPolicy.render(LockoutPolicy.defaults.schedule), "5:1m,6:5m,7:15m,8:1h")
    }

    /// Unforgiven failures of the past year count toward `deny`, not toward the delays.
    func testUnforgivenFailuresCountTowardTheCapForAYear() {
        let policy = LockoutPolicy.defaults
        var record = LockoutRecord()
        record.unforgiven = [1000, 2000, 3000, 4000, 5000, 6000]
        let now = at(10_000, uptime: 10_000)
        XCTAssertEqual(
            policy.status(of: record, at: now), .open(failures: 6, untilDelay: nil, untilDisabled: 3),
            "the 1-minute delay would come after the 5th failure of a run: the cap comes first")
        record.failedAt = [9000, 9100, 9200]
        record.lastFailure = at(9200, uptime: 9200)
        XCTAssertEqual(policy.status(of: record, at: now), .disabled(failures: 9))
        XCTAssertEqual(
            policy.status(of: record, at: at(1000 + LockoutPolicy.unforgivenLifetime, uptime: 99_999_999)),
            .open(failures: 8, untilDelay: nil, untilDisabled: 1),
            "the first unforgiven failure no longer counts a year later")
    }

    func testMessagesReadLikeALockScreen() {
        XCTAssertEqual(
            Messages.text(
                for: .incorrect(.open(failures: 3, untilDelay: NextDelay(attempts: 2, delay: 60), untilDisabled: 7))),
            "Incorrect PIN. 2 attempts left before a 1-minute delay.")
        XCTAssertEqual(
            Messages.locked(.delayed(seconds: 250, failures: 6)), "Too many failed attempts. Try again in 4 min 10 s.")
        XCTAssertEqual(
            Messages.locked(.disabled(failures: 20)), "PIN disabled after 20 failed attempts; ask an administrator.")
        XCTAssertEqual(DurationText.spoken(3600), "1 h")
        XCTAssertEqual(DurationText.spoken(3660), "1 h 1 min")
        XCTAssertEqual(DurationText.adjective(900), "15-minute")
    }
}
