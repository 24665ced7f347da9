// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// `nopin=fail`: nobody can tell from outside who has a PIN. An enrolled user's wrong
/// PINs, a user without a PIN and an unknown name get byte-for-byte the same transcript
/// (prompts, messages, PAM codes) over twelve attempts — counts going down, a repeat not
/// counted, the lockout — and the names tried leave no file of their own.
final class NoEnumerationTests: XCTestCase {
    func testTwelveWrongAttemptsReadTheSameForEveryName() throws {
        let sandbox = try Sandbox.enrolled(
            "daemon", pin: "6193", configuration: Sandbox.fastKDF + "nopin = fail\nschedule =\n")
        let guesses = ["1111", "2222", "3333", "2222", "4444", "5555", "6666", "7777", "8888", "9999", "0000", "1212"]
        var transcripts: [String: [String]] = [:]
        for name in ["daemon", "bin", "srnosuchuser"] {
            try sandbox.forgetDecoySlots()
            transcripts[name] = try guesses.map { guess in
                let run = try sandbox.pam(user: name, responses: [guess])
                return "\(run.prompts) \(run.errors) \(run.code)"
            }
        }
        XCTAssertEqual(transcripts["daemon"], transcripts["bin"], "a user without a PIN reads differently")
        XCTAssertEqual(transcripts["daemon"], transcripts["srnosuchuser"], "an unknown name reads differently")
        XCTAssertEqual(
            transcripts["daemon"]?[0],
            "[\"PIN: \"] [\"Incorrect PIN. 8 attempts left before the PIN is disabled.\"] \(PAMCode.authError)")
        XCTAssertEqual(transcripts["daemon"]?[3].contains("already tried; not counted again"), true)
        XCTAssertEqual(
            transcripts["daemon"]?[11],
            "[] [\"PIN disabled after 9 failed attempts; ask an administrator.\"] \(PAMCode.maxTries)")
        // Bounded state: the names tried made no file of their own, only decoy slots.
        let files = try FileManager.default.contentsOfDirectory(atPath: sandbox.state + "/users").sorted()
        XCTAssertTrue(
            files.allSatisfy { $0.hasPrefix("daemon.") || $0.hasPrefix(".decoy-") || $0 == ".decoy.lock" }, "\(files)")
        XCTAssertEqual(files.filter { $0.hasPrefix(".decoy-") }.count, 1, "the last name's slot")
    }

    /// With nopin=ignore (the default) a user without a PIN falls through at once.
    func testUsersWithoutAPINFallThroughByDefault() throws {
        let sandbox = try Sandbox.enrolled("daemon", pin: "6193")
        let run = try sandbox.pam(user: "bin", responses: ["1111"])
        XCTAssertEqual(run.code, PAMCode.credentialExpired)
        XCTAssertEqual(run.prompts, [])
    }
}
