// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// The account and password (chauthtok) groups.
final class AccountAndChangeTests: XCTestCase {
    let user = "daemon"
    let pin = "7391"

    func testAccountReflectsWhetherThePINIsUsable() throws {
        let sandbox = try Sandbox(configuration: Sandbox.fastKDF + "deny = 1\n")
        try sandbox.setPIN(user, pin: pin)
        try sandbox.probeService(group: "account")
        try sandbox.probeService("auth")
        XCTAssertEqual(try sandbox.pam(user: user, operations: ["acct"]).code, PAMCode.success)
        XCTAssertEqual(
            try sandbox.pam(user: "bin", operations: ["acct"]).code, PAMCode.credentialExpired, "no PIN: ignored")
        _ = try sandbox.pam("auth", user: user, responses: ["1111"])
        XCTAssertEqual(try sandbox.pam(user: user, operations: ["acct"]).code, PAMCode.maxTries)
    }

    func testChangeNeedsTheCurrentPINAndAppliesThePolicy() throws {
        let sandbox = try Sandbox()
        try sandbox.setPIN(user, pin: pin)
        try sandbox.probeService("password", group: "password")
        try sandbox.probeService()

        let wrong = try sandbox.pam("password", user: user, responses: ["1111"], operations: ["chauthtok"])
        XCTAssertEqual(wrong.code, PAMCode.authError)
        XCTAssertEqual(try sandbox.status(user)["failures"] as? Int, 1, "a wrong current PIN counts")

        let weak = try sandbox.pam("password", user: user, responses: [pin, "1234"], operations: ["chauthtok"])
        XCTAssertEqual(weak.code, PAMCode.authTokenError)
        XCTAssertEqual(weak.errors.first?.hasPrefix("PIN rejected:"), true)

        let mismatch = try sandbox.pam(
            "password", user: user, responses: [pin, "6028", "5827"], operations: ["chauthtok"])
        XCTAssertEqual(mismatch.code, PAMCode.authTokenError)
        XCTAssertEqual(mismatch.errors, ["PINs do not match."])

        let changed = try sandbox.pam(
            "password", user: user, responses: [pin, "6028", "6028"], operations: ["chauthtok"])
        XCTAssertEqual(changed.code, PAMCode.success)
        XCTAssertEqual(changed.prompts, ["Current PIN: ", "New PIN: ", "Retype new PIN: "])
        XCTAssertEqual(try sandbox.pam(user: user, responses: ["6028"]).code, PAMCode.success)
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.authError, "old PIN stops working")

        // The current PIN as the new one (third red team, F3): refused before the retype,
        // though the policy allows it.
        let same = try sandbox.pam("password", user: user, responses: ["6028", "6028"], operations: ["chauthtok"])
        XCTAssertEqual(same.code, PAMCode.authTokenError)
        XCTAssertEqual(same.errors, ["PIN rejected: it is the current PIN; choose a different one."])
        XCTAssertEqual(same.prompts, ["Current PIN: ", "New PIN: "])
        XCTAssertEqual(try sandbox.pam(user: user, responses: ["6028"]).code, PAMCode.success)
    }
}
