// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// A hostile application at the PAM edge: no conversation function, one that fails or
/// answers with NULL, answers that are empty, huge, not ASCII digits or cut by a NUL,
/// user names that could leave the records directory, and no PAM_USER at all.
///
/// Each case must end in a clean PAM code (the driver returns it: no signal, no hang),
/// with a syslog line from the module saying why, and must not count a failure when no
/// PIN was checked. Run as root (the module checks in-process) in a namespace whose
/// /dev/log the test reads (`HostileHarness`).
final class HostileConversationTests: XCTestCase {
    private func harness() throws -> HostileHarness {
        try HostileHarness(suite: "HostileConversationTests")
    }

    /// The conversation options of driver.c and what the module must log for each: a
    /// failed call says so with libpam's reason, a "successful" call without an answer too.
    func testBrokenConversationsAreConvErrAndCountNothing() throws {
        let harness = try harness()
        let cases: [(String, String)] = [
            ("none", "conversation failed: System error"),
            ("fail", "conversation failed: Conversation error"),
            ("null-array", "conversation returned no answer"),
            ("null-reply", "conversation returned no answer"),
        ]
        for (mode, log) in cases {
            let run = try harness.run(options: ["--conversation", mode])
            harness.expect(run, code: PAMCode.conversationError, log: log, case: "conversation \(mode)")
            XCTAssertEqual(run.transcript.errors, [], mode)
        }
        XCTAssertEqual(try harness.failures(), 0)
    }

    /// Answers that are not PINs: refused as malformed before anything is read or counted;
    /// the 1 MiB answer is refused after at most `PINFormat.maximumInputLength` bytes.
    func testAnswersThatAreNotPINsAreAuthErrAndCountNothing() throws {
        let harness = try harness()
        let cases: [(String, [String])] = [
            ("empty answer", ["--reply-hex", ""]),
            ("1 MiB answer", ["--reply-size", String(1 << 20)]),
            (
                "Arabic-Indic digits \u{661}\u{662}\u{663}\u{664}",
                ["--reply-hex", Self.hex("\u{661}\u{662}\u{663}\u{664}")]
            ),
            (
                "fullwidth digits \u{FF11}\u{FF12}\u{FF13}\u{FF14}",
                ["--reply-hex", Self.hex("\u{FF11}\u{FF12}\u{FF13}\u{FF14}")]
            ),
            ("embedded NUL 12\\0 34", ["--reply-hex", "3132003334"]),
            ("right PIN after a NUL \\0 7391", ["--reply-hex", "00" + Self.hex(harness.pin)]),
        ]
        for (name, options) in cases {
            let run = try harness.run(options: options)
            harness.expect(run, code: PAMCode.authError, log: "malformed PIN entered", case: name)
            XCTAssertEqual(run.transcript.prompts, ["PIN: "], name)
            XCTAssertEqual(run.transcript.errors, ["The PIN must be exactly 4 digits (0-9)."], name)
        }
        XCTAssertEqual(try harness.failures(), 0)
        // The same state still takes the right PIN: nothing above broke it.
        let right = try harness.run(options: ["--reply-hex", Self.hex(harness.pin)])
        harness.expect(right, code: PAMCode.success, log: "PIN accepted", case: "right PIN afterwards")
    }

    /// Names that could leave users/ or overflow a buffer: unknown, before any prompt.
    func testHostileUserNamesAreUnknownWithoutAPrompt() throws {
        let harness = try harness()
        let names = [
            "a/b", "/etc/shadow", "..", "../daemon", "daemon/../daemon", String(repeating: "d", count: 300), "",
        ]
        for name in names {
            let run = try harness.run(user: name, responses: [harness.pin])
            let label = name.isEmpty ? "empty user name" : "user name \(name.count > 40 ? "\(name.count) × d" : name)"
            harness.expect(run, code: PAMCode.userUnknown, log: "invalid user name", case: label)
            XCTAssertEqual(run.transcript.prompts, [], label)
        }
        XCTAssertEqual(try harness.failures(), 0)
    }

    /// No PAM_USER (pam_start with NULL): the module asks libpam, which asks the
    /// conversation; a failing conversation or an empty name is a clean refusal.
    func testMissingUserIsAskedForAndRefusedCleanly() throws {
        let harness = try harness()
        let failed = try harness.run(user: nil, options: ["--conversation", "fail"])
        harness.expect(
            failed, code: PAMCode.conversationError, log: "cannot determine the user name: Conversation error",
            case: "no PAM_USER, conversation fails")
        let nothing = try harness.run(user: nil, options: ["--conversation", "null-reply"])
        harness.expect(
            nothing, code: PAMCode.conversationError, log: "cannot determine the user name: Conversation error",
            case: "no PAM_USER, NULL answer")
        let empty = try harness.run(user: nil, responses: ["", harness.pin])
        harness.expect(empty, code: PAMCode.userUnknown, log: "invalid user name \"\"", case: "no PAM_USER, empty name")
        XCTAssertEqual(empty.transcript.prompts.count, 1, "only the name was asked for: \(empty.transcript.prompts)")
        XCTAssertEqual(try harness.failures(), 0)
    }

    /// A PIN change whose conversation breaks at each of its three prompts: nothing
    /// changes (the old PIN still works) and only a checked current PIN counts.
    func testBrokenConversationDuringAPINChangeChangesNothing() throws {
        let harness = try harness()
        let none = try harness.run(options: ["--conversation", "null-reply"], operations: ["chauthtok"])
        harness.expect(
            none, code: PAMCode.conversationError, log: "conversation returned no answer",
            case: "chauthtok, NULL answer to the current PIN")
        let malformed = try harness.run(options: ["--reply-size", String(1 << 20)], operations: ["chauthtok"])
        harness.expect(
            malformed, code: PAMCode.authError, log: "malformed PIN entered", case: "chauthtok, 1 MiB current PIN")
        XCTAssertEqual(try harness.failures(), 0)
        // The current PIN is right, then the conversation ends before the new one.
        let cut = try harness.run(responses: [harness.pin], operations: ["chauthtok"])
        harness.expect(
            cut, code: PAMCode.conversationError, log: "conversation failed: Conversation error",
            case: "chauthtok, no new PIN")
        XCTAssertEqual(try harness.failures(), 0, "the right current PIN clears the count")
        let still = try harness.run(responses: [harness.pin])
        harness.expect(
            still, code: PAMCode.success, log: "PIN accepted", case: "old PIN still valid after the cut change")
    }

    /// Lowercase hex of `text`'s UTF-8 bytes, for --reply-hex.
    static func hex(_ text: String) -> String {
        text.utf8.map { String(format: "%02x", $0) }.joined()
    }
}

extension HostileHarness {
    /// (Shared by HostileFilesystemTests.) Asserts that `run` ended cleanly with `code` and a
    /// module syslog line containing `log` (see `problems`), and records the case for the report.
    func expect(
        _ run: Run, code: Int32, log: String, case name: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(problems(run, code: code, log: log, case: name), [], file: file, line: line)
    }
}
