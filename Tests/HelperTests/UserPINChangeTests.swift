// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// A user changes their own PIN with `secureroom change`, which goes through the
/// setuid helper when run without root; the policy and the lockout apply as for root.
final class UserPINChangeTests: XCTestCase {
    let user = "daemon", uid: UInt32 = 1
    let pin = "7391", newPIN = "6028"

    private func stage() throws -> UnprivilegedStage {
        let stage = try UnprivilegedStage(sandbox: try Sandbox.enrolled(user, pin: pin))
        try stage.probeService()
        return stage
    }

    func testUserChangesOwnPINAndTheOldOneStopsWorking() throws {
        let stage = try stage()
        let result = try stage.cli(as: uid, ["change", "--stdin"], input: "\(pin)\n\(newPIN)\n")
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertEqual(result.output, "PIN changed for daemon.\n")
        XCTAssertEqual(try stage.pam(as: uid, user: user, responses: [pin]).code, PAMCode.authError)
        XCTAssertEqual(try stage.pam(as: uid, user: user, responses: [newPIN]).code, PAMCode.success)
        XCTAssertTrue(
            stage.logLines().contains {
                $0.contains("secureroom-helper") && $0.contains("PIN changed for daemon (uid 1)")
            },
            "\(stage.logLines())")
    }

    /// A record below the argon2 floor is refused at login through the helper, but its
    /// user can still replace it: the new PIN is written at the configured cost.
    func testAPINBelowTheArgon2FloorCanStillBeChangedByItsUser() throws {
        let stage = try stage()
        // The policy the helper reads (the stage's /etc/security), without argon2_below_floor.
        let policy = stage.sandbox.root + "/etc-security/secureroom.conf"
        try stage.sandbox.write(
            policy,
            "dir = \(stage.sandbox.state)\nhelper = \(stage.bin)/secureroom-helper\nargon2_memory = 19456\n"
                + "argon2_time = 2\nargon2_lanes = 1\ntpm = off\nlocal_services = *\n", mode: 0o644)
        XCTAssertEqual(try stage.pam(as: uid, user: user, responses: [pin]).code, PAMCode.authInfoUnavailable)
        let result = try stage.cli(as: uid, ["change", "--stdin"], input: "\(pin)\n\(newPIN)\n")
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertEqual(try stage.sandbox.status(user)["argon2"] as? String, "m=19456,t=2,p=1")
        XCTAssertEqual(try stage.pam(as: uid, user: user, responses: [newPIN]).code, PAMCode.success)
    }

    func testWrongCurrentPINCountsAndChangesNothing() throws {
        let stage = try stage()
        let result = try stage.cli(as: uid, ["change", "--stdin"], input: "1357\n\(newPIN)\n")
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.errorOutput, "secureroom: Incorrect PIN. 4 attempts left before a 1-minute delay.\n")
        XCTAssertEqual(try stage.sandbox.status(user)["failures"] as? Int, 1)
        XCTAssertEqual(try stage.pam(as: uid, user: user, responses: [pin]).code, PAMCode.success)
    }

    func testWeakNewPINIsRejectedBeforeAnyAttempt() throws {
        let stage = try stage()
        let result = try stage.cli(as: uid, ["change", "--stdin"], input: "1357\n1234\n")
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.errorOutput.contains("PIN rejected"), result.errorOutput)
        XCTAssertFalse(result.errorOutput.contains("allow-weak"), "a user is not told of root's option")
        XCTAssertEqual(try stage.sandbox.status(user)["failures"] as? Int, 0, "a refused change costs no attempt")
        // The helper judges the new PIN itself, before the current one, whatever the client did.
        let direct = try stage.helper(as: uid, ["change", user], input: "1357\n1234\n")
        XCTAssertEqual(direct.status, 6)
        XCTAssertEqual(direct.lines.last, "rejected on the list of commonly chosen PINs")
        XCTAssertEqual(try stage.sandbox.status(user)["failures"] as? Int, 0)
    }

    /// Regression (third red team, F3): a PIN handed out with `set --expire` cannot be
    /// "changed" into itself, by the tool or by the helper spoken to directly; it stays
    /// expired, and a different PIN clears that. Nothing is counted either way.
    func testAHandedOutPINIsNotItsOwnReplacement() throws {
        let stage = try stage()
        let handedOut = "5291"  // one the policy allows: only sameness refuses it
        XCTAssertEqual(try stage.sandbox.cli(["set", user, "--stdin", "--expire"], input: handedOut + "\n").status, 0)
        let same = try stage.cli(as: uid, ["change", "--stdin"], input: "\(handedOut)\n\(handedOut)\n")
        XCTAssertEqual(same.status, 1)
        XCTAssertEqual(
            same.errorOutput,
            "secureroom: PIN rejected: it is the current PIN; choose a different one; nothing was changed\n")
        let direct = try stage.helper(as: uid, ["change", user], input: "\(handedOut)\n\(handedOut)\n")
        XCTAssertEqual(direct.status, 6)
        XCTAssertEqual(direct.lines, ["ready", "rejected it is the current PIN; choose a different one"])
        let status = try stage.sandbox.status(user)
        XCTAssertNotNil(status["must_change"] as? String, "still expired: \(status)")
        XCTAssertEqual(status["failures"] as? Int, 0)
        XCTAssertEqual(try stage.cli(as: uid, ["change", "--stdin"], input: "\(handedOut)\n\(newPIN)\n").status, 0)
        XCTAssertNil(try stage.sandbox.status(user)["must_change"] as? String, "a different PIN clears it")
    }

    func testUserCannotChangeAnotherUsersPIN() throws {
        let stage = try stage()
        try stage.sandbox.setPIN("bin", pin: "3719")
        let result = try stage.cli(as: uid, ["change", "bin", "--stdin"], input: "3719\n\(newPIN)\n")
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.errorOutput, "secureroom: only root can change another user's PIN\n")
        let direct = try stage.helper(as: uid, ["change", "bin"], input: "3719\n\(newPIN)\n")
        XCTAssertEqual(direct.status, 5)
        XCTAssertEqual(
            try stage.sandbox.pam(user: "bin", responses: ["3719"]).code, PAMCode.success, "bin's PIN unchanged")
        XCTAssertEqual(try stage.sandbox.status("bin")["failures"] as? Int, 0)
    }

    func testRootOnlyOptionsAreRefusedForUsers() throws {
        let stage = try stage()
        for arguments in [["change", "--allow-weak", "--stdin"], ["change", "--dir", "/tmp", "--stdin"]] {
            let result = try stage.cli(as: uid, arguments, input: "\(pin)\n\(newPIN)\n")
            XCTAssertEqual(result.status, 1, "\(arguments)")
            XCTAssertTrue(result.errorOutput.contains("need"), result.errorOutput)
        }
    }
}
