// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// What the module writes to the auth log for each outcome: the user, then
/// `; service=S tty=T rhost=H ruser=U` (pam/README.md, "Logging"), read from the real
/// syslog socket; and the shipped fail2ban filter (pam/fail2ban/secureroom.conf) run by
/// fail2ban-regex over those very lines.
final class SyslogTests: XCTestCase {
    func testEveryOutcomeSaysWhoAndFromWhereAndFail2banMatchesRemoteFailures() throws {
        let harness = try HostileHarness(suite: "syslog", arguments: "remote=allow nopin=fail deny=3 schedule=")
        let remote = ["--rhost", "198.51.100.7"]
        let origin = "; service=probe tty=- rhost=198.51.100.7 ruser=-"
        let cases: [(options: [String], user: String, responses: [String], line: String)] = [
            (remote, harness.user, ["1111"], "authentication failure for daemon: wrong PIN ("),
            (remote, harness.user, ["1111"], "authentication failure for daemon: repeated wrong PIN, not counted"),
            (remote, "bin", ["1111"], "authentication failure for bin: no PIN enrolled (nopin=fail)"),
            (remote, "srnosuchuser", ["1111"], "authentication failure for srnosuchuser: unknown account (nopin=fail)"),
            (remote, harness.user, [harness.pin], "PIN accepted for daemon"),
            ([], harness.user, ["2222"], "authentication failure for daemon: wrong PIN ("),
        ]
        var logged: [String] = []
        for (index, item) in cases.enumerated() {
            let run = try harness.run(user: item.user, options: item.options, responses: item.responses)
            let line = try XCTUnwrap(run.moduleLog.first { $0.contains(item.line) }, "case \(index): \(run.moduleLog)")
            let expectedOrigin = item.options.isEmpty ? "; service=probe tty=- rhost=- ruser=-" : origin
            XCTAssertTrue(line.hasSuffix(expectedOrigin), "case \(index): \(line)")
            logged.append(contentsOf: run.moduleLog)
        }
        // Three failures since the right PIN (deny=3): the next attempt is refused as locked.
        for wrong in ["3333", "4444"] {
            logged += try harness.run(user: harness.user, options: remote, responses: [wrong]).moduleLog
        }
        let locked = try harness.run(user: harness.user, options: remote, responses: [harness.pin])
        let refusal = try XCTUnwrap(
            locked.moduleLog.first { $0.contains("refused daemon: PIN locked") }, "\(locked.moduleLog)")
        XCTAssertTrue(refusal.hasSuffix(origin), refusal)
        logged.append(contentsOf: locked.moduleLog)

        // As a syslog file has them: "Nov 24 14:20:00 host ident[pid]: message".
        let stamp = "Nov 24 14:20:00"
        let file = harness.sandbox.root + "/auth.log"
        let text =
            logged.map { line -> String in
                // "<PRI>Mmm dd hh:mm:ss "
                let message = line.drop { $0 != ">" }.dropFirst().drop { $0 != " " }.dropFirst()
                let afterDate = message.split(separator: " ", maxSplits: 2).last.map(String.init) ?? String(message)
                return "\(stamp) testhost \(afterDate)"
            }.joined(separator: "\n") + "\n"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let filter = try installedFilter(in: harness.sandbox)
        let result = try runProgram("/usr/bin/fail2ban-regex", ["--print-all-matched", file, filter])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        // Remote: 3 wrong PINs, the repeat, two nopin=fail names and the lock: 7 of them.
        // The accepted PIN and the local wrong PIN (rhost=-) are not matched.
        XCTAssertTrue(result.output.contains("198.51.100.7"), result.output)
        let matched = result.output.split(separator: "\n").first { $0.hasPrefix("Lines: ") } ?? ""
        XCTAssertTrue(matched.contains(" 7 matched"), "\(matched)\n\(text)")
    }

    /// Regression (third red team, F7): on the systemd backend the shipped filter reads
    /// only lines journald received from root on the authpriv facility, so a user's
    /// `logger` line in the module's very words bans nobody. The real systemd-journald
    /// runs in a private namespace (Fixtures/private-journal.sh); the module logs a remote
    /// wrong PIN there as root, and uid 65534 forges the same line for another address.
    func testOnTheJournalFail2banTakesTheModulesLinesAndNotAUsersForgery() throws {
        let (sandbox, store, driver) = try journalStage()
        let forged =
            "pam_secureroom(sshd:auth): authentication failure for daemon: wrong PIN (1 of 9 counted); "
            + "service=sshd tty=- rhost=198.51.100.66 ruser=-"
        let script =
            "echo 1111 | \(driver) >/dev/null; echo driver=$?; "
            + "setpriv --reuid=65534 --regid=65534 --clear-groups logger -p authpriv.notice -t sshd '\(forged)'"
        let logged = try runProgram(
            Artifacts.root + "/Tests/PAMModuleTests/Fixtures/private-journal.sh", [store, script])
        XCTAssertEqual(logged.status, 0, logged.output + logged.errorOutput)
        XCTAssertEqual(
            logged.output, "driver=\(PAMCode.authError)\n", "the wrong PIN is refused: \(logged.errorOutput)")
        let filter = try installedFilter(in: sandbox)
        func regex(_ options: [String]) throws -> (matched: String, output: String) {
            let result = try runProgram(
                "/usr/bin/fail2ban-regex",
                options + [
                    "--print-all-matched", "systemd-journal[journalpath=\(store)]", filter,
                ])
            XCTAssertEqual(result.status, 0, result.output + result.errorOutput)
            return (String(result.output.split(separator: "\n").first { $0.hasPrefix("Lines: ") } ?? ""), result.output)
        }
        let shipped = try regex([])
        XCTAssertTrue(shipped.output.contains("journal match : _UID=0 SYSLOG_FACILITY=10"), shipped.output)
        XCTAssertTrue(shipped.matched.contains(" 1 matched"), shipped.output)
        XCTAssertTrue(shipped.output.contains("203.0.113.7"), shipped.output)
        XCTAssertFalse(shipped.output.contains("198.51.100.66"), shipped.output)
        // The forged line is in the journal and in the module's words: without the uid in
        // the match, the same regular expressions take it too.
        let facilityOnly = try regex(["--journalmatch", "SYSLOG_FACILITY=10"])
        XCTAssertTrue(facilityOnly.matched.contains(" 2 matched"), facilityOnly.output)
        XCTAssertTrue(facilityOnly.output.contains("198.51.100.66"), facilityOnly.output)
    }

    /// Where /dev/log is journald's (a bind mount of /run/systemd/journal/dev-log, as the
    /// usual symbolic link), each outcome is one native journal entry: the syslog line's
    /// text ("pam_secureroom(SERVICE:auth): ..."), priority and facility, so forwarding and
    /// fail2ban see the same line, plus MESSAGE_ID and the SECUREROOM_* fields; nothing
    /// is logged twice. Read back from the real systemd-journald's files by journalctl.
    func testOnTheJournalEachOutcomeIsOneEntryWithItsFields() throws {
        let (sandbox, store, driver) = try journalStage()
        defer { withExtendedLifetime(sandbox) {} }
        let logged = try runProgram(
            Artifacts.root + "/Tests/PAMModuleTests/Fixtures/private-journal.sh",
            [store, "echo 1111 | \(driver) >/dev/null; echo 7391 | \(driver) >/dev/null; echo done"])
        XCTAssertEqual(logged.output, "done\n", logged.errorOutput)
        let read = try runProgram("/usr/bin/journalctl", ["--directory=" + store, "-o", "json", "--no-pager"])
        XCTAssertEqual(read.status, 0, read.errorOutput)
        let entries = try read.output.split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { ($0["MESSAGE"] as? String)?.hasPrefix("pam_secureroom(") == true }
        let origin = "; service=probe tty=- rhost=203.0.113.7 ruser=-"
        for (id, text, priority) in [
            (
                "9bbc11863c864591b7c1fa6c591af1f2",
                "pam_secureroom(probe:auth): authentication failure for daemon: wrong PIN (", "5"
            ),
            ("f8a9de361a8d4daeab7be5112bd11098", "pam_secureroom(probe:auth): PIN accepted for daemon", "6"),
        ] {
            let matching = entries.filter { $0["MESSAGE_ID"] as? String == id }
            XCTAssertEqual(matching.count, 1, "one entry of \(id): \(entries)")
            guard let entry = matching.first, let message = entry["MESSAGE"] as? String else { continue }
            XCTAssertTrue(message.hasPrefix(text) && message.hasSuffix(origin), message)
            XCTAssertEqual(entry["PRIORITY"] as? String, priority)
            XCTAssertEqual(entry["SYSLOG_FACILITY"] as? String, "10")
            XCTAssertEqual(entry["_UID"] as? String, "0")
            XCTAssertEqual(entry["SECUREROOM_USER"] as? String, "daemon")
            XCTAssertEqual(entry["SECUREROOM_SERVICE"] as? String, "probe")
            XCTAssertEqual(entry["SECUREROOM_RHOST"] as? String, "203.0.113.7")
            XCTAssertEqual(
                entry["SYSLOG_IDENTIFIER"] as? String, URL(fileURLWithPath: Artifacts.driver).lastPathComponent)
        }
        XCTAssertEqual(
            entries.filter { ($0["MESSAGE"] as? String)?.contains("wrong PIN") == true }.count, 1,
            "not also as a syslog line: \(entries)")
    }

    /// For the journal tests: daemon's PIN 7391 with `remote=allow`, an empty directory
    /// for the private journal's files, and the command line of one `auth` from
    /// 203.0.113.7 (the PIN on its standard input).
    private func journalStage() throws -> (sandbox: Sandbox, store: String, driver: String) {
        let sandbox = try Sandbox.enrolled("daemon", pin: "7391")
        try sandbox.probeService(arguments: "remote=allow")
        let store = sandbox.root + "/journal"
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: false)
        let driver =
            [Artifacts.driver]
            + sandbox.driverArguments(
                "probe", user: "daemon", options: ["--rhost", "203.0.113.7"], operations: ["auth"])
        return (sandbox, store, driver.joined(separator: " "))
    }

    /// The shipped filter as installed, in a filter.d directory beside fail2ban's own
    /// common.conf, under `sandbox`; its path.
    private func installedFilter(in sandbox: Sandbox) throws -> String {
        let filters = sandbox.root + "/filter.d"
        try FileManager.default.createDirectory(atPath: filters, withIntermediateDirectories: true)
        for (source, name) in [
            (Artifacts.root + "/pam/fail2ban/secureroom.conf", "secureroom.conf"),
            ("/etc/fail2ban/filter.d/common.conf", "common.conf"),
        ] {
            try FileManager.default.copyItem(atPath: source, toPath: filters + "/" + name)
        }
        return filters + "/secureroom.conf"
    }
}
