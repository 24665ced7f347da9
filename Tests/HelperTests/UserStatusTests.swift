// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// A user sees their own PIN with `secureroom status`, through the setuid helper's
/// `pin-state` and `vault-state` (no PIN read, nothing counted); another user's stays
/// root's to see.
final class UserStatusTests: XCTestCase {
    let user = "daemon", uid: UInt32 = 1
    let pin = "7391"

    private func stage() throws -> UnprivilegedStage {
        let stage = try UnprivilegedStage(sandbox: try Sandbox.enrolled(user, pin: pin))
        try stage.probeService()
        return stage
    }

    func testAUserSeesTheirOwnFailuresAndLockout() throws {
        let stage = try stage()
        XCTAssertEqual(try stage.pam(as: uid, user: user, responses: ["1357"]).code, PAMCode.authError)
        let table = try stage.cli(as: uid, ["status"])
        XCTAssertEqual(table.status, 0, table.errorOutput)
        XCTAssertEqual(table.lines.count, 2, table.output)
        XCTAssertTrue(table.lines[1].hasPrefix("daemon       yes         1        open     -"), table.output)
        let json = try stage.cli(as: uid, ["status", user, "--json"])
        XCTAssertEqual(json.status, 0, json.errorOutput)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        XCTAssertEqual(object["user"] as? String, user)
        XCTAssertEqual(object["enrolled"] as? Bool, true)
        XCTAssertEqual(object["failures"] as? Int, 1)
        XCTAssertEqual(object["state"] as? String, "open")
        XCTAssertTrue(object["last_failure"] is NSNull, "root's to see")
        XCTAssertEqual(object["tpm"] as? String, "unknown")
        XCTAssertEqual(try stage.sandbox.status(user)["failures"] as? Int, 1, "looking counts nothing")

        // A handed-out PIN shows as one that must be changed.
        XCTAssertEqual(try stage.sandbox.cli(["set", user, "--stdin", "--expire"], input: "5291\n").status, 0)
        // Without USER, an array as root gets (here of one): the same shape for scripts.
        let expired = try stage.cli(as: uid, ["status", "--json"])
        let expiredRows = try JSONSerialization.jsonObject(with: Data(expired.output.utf8)) as? [[String: Any]]
        XCTAssertEqual(expiredRows?.count, 1, expired.output)
        XCTAssertEqual(expiredRows?.first?["user"] as? String, user)
        XCTAssertFalse(expiredRows?.first?["must_change"] is NSNull, expired.output)
    }

    func testAnotherUsersPINStaysRootsToSee() throws {
        let stage = try stage()
        let other = try stage.cli(as: uid, ["status", "bin"])
        XCTAssertEqual(other.status, 1)
        XCTAssertEqual(other.errorOutput, "secureroom: only root can see another user's PIN\n")
        XCTAssertEqual(try stage.cli(as: uid, ["status", "--dir", "/tmp"]).status, 1)
        // The helper itself, asked directly for another account: refused and logged.
        let direct = try stage.helper(as: uid, ["pin-state", "bin"])
        XCTAssertEqual(direct.status, 5)
        XCTAssertTrue(direct.lines.last?.hasPrefix("refused ") == true, direct.output)
    }
}
