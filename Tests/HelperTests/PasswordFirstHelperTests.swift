// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// `password_first=boot` for callers without root (a screen locker, `secureroom change`):
/// the module asks for nothing (the helper answers before any prompt); the helper, spoken to
/// directly, replies `password-first` before "ready" and counts nothing.
final class PasswordFirstHelperTests: XCTestCase {
    let user = "daemon", uid: UInt32 = 1
    let pin = "7391"

    func testWithoutAPasswordSinceBootNoCallerWithoutRootGetsThePINChecked() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin)
        let stage = try UnprivilegedStage(
            sandbox: sandbox, extraConfiguration: "sessions = \(sandbox.root)/run\npassword_first = boot\n")
        try stage.probeService()
        let locker = try stage.pam(as: uid, user: user, responses: [pin])
        XCTAssertEqual(locker.code, PAMCode.credentialExpired, "PAM_IGNORE")
        XCTAssertEqual(locker.prompts, [])
        let change = try stage.cli(as: uid, ["change", "--stdin"], input: "\(pin)\n6028\n")
        XCTAssertNotEqual(change.status, 0)
        // The same words as root's `secureroom change` (the error's own text).
        XCTAssertTrue(change.errorOutput.contains("only after a password login since"), change.errorOutput)
        let direct = try stage.helper(as: uid, ["verify", user], input: pin + "\n")
        XCTAssertEqual(direct.status, 5)
        XCTAssertEqual(direct.lines, ["password-first"], "refused before 'ready'")
        XCTAssertEqual(try sandbox.status(user)["failures"] as? Int, 0, "nothing counted")
    }
}
