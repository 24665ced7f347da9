// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// `password_first=` through the real libpam: the PIN is not asked for until the user's
/// password was accepted since boot (recorded by the `authsucc` line under `sessions=`),
/// and with a duration only within that time of it; `off` keeps the PIN available.
final class PasswordFirstTests: XCTestCase {
    let user = "daemon", pin = "7391"

    /// A sandbox with `password_first = RULE` and its own sessions directory, the probe
    /// service, and "password-ok": a stand-in for a right password (pam_permit), then the
    /// `authsucc` line, as the secureroom-authsucc profile puts it after pam_unix.
    private func sandbox(_ rule: String) throws -> Sandbox {
        let sandbox = try Sandbox.enrolled(user, pin: pin)
        try sandbox.write(
            sandbox.config,
            Sandbox.fastKDF + "sessions = \(sandbox.root)/run\npassword_first = \(rule)\n", mode: 0o600)
        try sandbox.probeService()
        try sandbox.service("password-ok", ["auth required pam_permit.so", "auth optional MODULE STATE authsucc"])
        return sandbox
    }

    private func assertNotAsked(_ sandbox: Sandbox, _ message: String, line: UInt = #line) throws {
        let refused = try sandbox.pam(user: user, responses: [pin])
        XCTAssertEqual(refused.code, PAMCode.credentialExpired, "PAM_IGNORE: \(message)", line: line)
        XCTAssertEqual(refused.prompts, [], "no PIN prompt: \(message)", line: line)
        XCTAssertEqual(
            refused.infos.first,
            "Use your password: your PIN works after your first password login since the computer started.",
            line: line)
    }

    func testThePINWorksOnlyAfterAPasswordLoginSinceBoot() throws {
        let sandbox = try sandbox("boot")
        try assertNotAsked(sandbox, "no password since boot")
        XCTAssertEqual(try sandbox.status(user)["state"] as? String, "password", "status says why")
        // Every name alike: one without a PIN (nopin=fail would prompt it) is not asked either.
        XCTAssertEqual(try sandbox.pam(user: "bin", responses: [pin]).prompts, [])
        XCTAssertEqual(try sandbox.status(user)["failures"] as? Int, 0, "nothing counted")

        XCTAssertEqual(try sandbox.pam("password-ok", user: user).code, PAMCode.success)
        let proof = sandbox.root + "/run/\(user).password"
        let mode = try FileManager.default.attributesOfItem(atPath: proof)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o644)
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success)
        XCTAssertEqual(try sandbox.status(user)["state"] as? String, "open")

        // A reboot empties the sessions directory; a proof of another boot counts for nothing.
        let text = try String(contentsOfFile: proof, encoding: .utf8)
        let otherBoot = text.replacingOccurrences(
            of: #"accepted: (\d+) [0-9a-f]{32} "#, with: "accepted: $1 00000000000000000000000000000000 ",
            options: .regularExpression)
        XCTAssertNotEqual(otherBoot, text)
        try sandbox.write(proof, otherBoot, mode: 0o644)
        try assertNotAsked(sandbox, "a proof of another boot")
        try FileManager.default.removeItem(atPath: proof)
        try assertNotAsked(sandbox, "after a reboot")
    }

    /// The PIN's own success is not a password: when the stack runs the `authsucc` line
    /// after it, the proof is not renewed (so `password_first=DURATION` cannot be stretched
    /// by PIN logins).
    func testAPINLoginIsNoProofOfThePassword() throws {
        let sandbox = try sandbox("boot")
        try sandbox.service(
            "pin-then-authsucc",
            [
                "auth [success=1 default=ignore] MODULE STATE nodelay", "auth requisite pam_deny.so",
                "auth required pam_permit.so", "auth optional MODULE STATE authsucc",
            ])
        XCTAssertEqual(try sandbox.pam("password-ok", user: user).code, PAMCode.success)
        let proof = sandbox.root + "/run/\(user).password"
        let before = try String(contentsOfFile: proof, encoding: .utf8)
        Thread.sleep(forTimeInterval: 1.1)
        XCTAssertEqual(try sandbox.pam("pin-then-authsucc", user: user, responses: [pin]).code, PAMCode.success)
        XCTAssertEqual(try String(contentsOfFile: proof, encoding: .utf8), before, "not renewed by the PIN")
        XCTAssertEqual(try sandbox.pam("password-ok", user: user).code, PAMCode.success)
        XCTAssertNotEqual(try String(contentsOfFile: proof, encoding: .utf8), before, "renewed by the password")
    }

    /// `password_first=` on the PIN's line alone: the `authsucc` line, which does not name
    /// the option, records the password's proof all the same, so the PIN works after a
    /// password login (without it, the PIN could never be used).
    func testTheRuleOnThePINsLineAloneIsMetByAPasswordLogin() throws {
        let sandbox = try sandbox("off")
        try sandbox.service("pin-line-rule", ["auth required MODULE STATE nodelay password_first=boot"])
        XCTAssertEqual(
            try sandbox.pam("pin-line-rule", user: user, responses: [pin]).prompts, [], "no password since boot")
        XCTAssertEqual(try sandbox.pam("password-ok", user: user).code, PAMCode.success)
        XCTAssertEqual(try sandbox.pam("pin-line-rule", user: user, responses: [pin]).code, PAMCode.success)
    }

    func testWithADurationThePINStopsWorkingThatLongAfterThePassword() throws {
        let sandbox = try sandbox("2s")
        try assertNotAsked(sandbox, "no password yet")
        XCTAssertEqual(try sandbox.pam("password-ok", user: user).code, PAMCode.success)
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success)
        Thread.sleep(forTimeInterval: 2.2)
        try assertNotAsked(sandbox, "2 s after the password")
    }

    func testOffAndBadValues() throws {
        let sandbox = try sandbox("off")
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success)
        XCTAssertEqual(try sandbox.pam("password-ok", user: user).code, PAMCode.success)
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: sandbox.root + "/run/\(user).password"),
            "kept all the same: a PIN line may name the option where the authsucc line does not")
        try sandbox.write(sandbox.config, Sandbox.fastKDF + "password_first = sometimes\n", mode: 0o600)
        let bad = try sandbox.pam(user: user, responses: [pin])
        XCTAssertEqual(bad.code, PAMCode.serviceError)
    }
}
