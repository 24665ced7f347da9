// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// The offline attack of issue 15, with the documented derivation (`OfflineAttack`): a copy
/// of the state and the pepper gives away an unbound PIN and its wrong guesses (the
/// positive control), and nothing of a bound one.
final class OfflineAttackTests: XCTestCase {
    private let user = "daemon"
    private let pin = "6193"

    /// Enrols the PIN, makes two wrong guesses through the module, and attacks the state.
    private func attack(_ configuration: String) throws -> OfflineAttack.Result {
        let sandbox = try Sandbox(configuration: configuration)
        try sandbox.setPIN(user, pin: pin)
        try sandbox.probeService()
        for guess in ["2580", "1470"] {
            XCTAssertEqual(try sandbox.pam(user: user, responses: [guess]).code, PAMCode.authError)
        }
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success)
        XCTAssertEqual(try sandbox.pam(user: user, responses: ["3690"]).code, PAMCode.authError)
        return try OfflineAttack(state: sandbox.state, user: user).search()
    }

    func testAnUnboundPINFallsToTheStateAndThePepper() throws {
        let result = try attack(Sandbox.fastKDF)
        XCTAssertEqual(result.candidates, 10_000)
        XCTAssertEqual(result.pin, pin)
        XCTAssertEqual(
            result.wrongGuesses, ["3690"], "the current run's wrong guess (the success ended the earlier run)")
        print(
            "offline attack, unbound: all 10,000 PINs in \(String(format: "%.1f", result.seconds)) s (argon2 m=256 "
                + "KiB, t=1)"
        )
    }

    func testABoundPINGivesNothingAway() throws {
        setenv("TSS2_LOG", "all+none", 1)
        let tpm = try SoftwareTPM()
        defer { tpm.stop() }
        let result = try attack(tpm.requiredConfiguration)
        XCTAssertEqual(result.candidates, 10_000)
        XCTAssertNil(result.pin)
        XCTAssertEqual(result.wrongGuesses, [])
        XCTAssertEqual(try tpm.lockoutCounter(), 0, "each wrong PIN counted on the PIN's own index, not the chip's")
    }
}
