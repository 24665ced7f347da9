// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// `password_first=boot` for callers without root (a screen locker, `secureroom change`):
/// the module reads the proof itself and asks for nothing; the helper, spoken to
/// directly, refuses before "ready" and counts nothing.
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
        XCTAssertTrue(change.errorOutput.contains("Use your password"), change.errorOutput)
        let direct = try stage.helper(as: uid, ["verify", user], input: pin + "\n")
        XCTAssertEqual(direct.status, 5)
        XCTAssertEqual(direct.lines.first?.hasPrefix("refused Use your password"), true, direct.output)
        XCTAssertEqual(try sandbox.status(user)["failures"] as? Int, 0, "nothing counted")
    }
}
