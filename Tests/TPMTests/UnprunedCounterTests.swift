// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

@testable import SecureRoomCore
@testable import TPMESAPI

/// On a hardened chip a replaced PIN's counter stays until an administrator prunes it
/// with the TPM recovery secret; so that no user can fill the chip for everyone by
/// changing their own PIN again and again, a change is refused while
/// `PINAdministration.unprunedCounterLimit` such counters wait, and works again after
/// `secureroom tpm prune`. An administrator's `set` is not refused.
final class UnprunedCounterTests: XCTestCase {
    private let user = "daemon"

    private func pin(_ text: String) -> SecretBytes { Array(text.utf8).withUnsafeBytes { SecretBytes(copying: $0) } }

    func testAUsersOwnChangeWaitsForAPruneOnceOldCountersPileUp() throws {
        setenv("TSS2_LOG", "all+none", 1)
        let tpm = try SoftwareTPM()
        defer { tpm.stop() }
        let sandbox = try Sandbox(configuration: tpm.requiredConfiguration)
        try sandbox.setPIN(user, pin: "6193")
        let harden = try sandbox.cli(["tpm", "harden"])
        XCTAssertEqual(harden.status, 0, harden.errorOutput)
        let secret = try XCTUnwrap(harden.output.split(separator: "\n").first { $0.hasPrefix("hex:") })
        var configuration = try Configuration.load(
            arguments: ["conf=" + sandbox.config], reader: ConfigurationFile.read)
        configuration.directory = sandbox.state
        let store = StateStore(configuration: configuration)
        let authority = LocalPINAuthority(store: store)
        // Each change leaves the old counter behind on the hardened chip.
        var current = "6193"
        for next in (0..<PINAdministration.unprunedCounterLimit).map({ String(format: "%04d", 2000 + $0 * 7) }) {
            guard
                case .success = try authority.change(
                    try UserName(user), current: { self.pin(current) },
                    new: { _ in
                        self.pin(next)
                    })
            else { return XCTFail("change to \(next)") }
            current = next
        }
        XCTAssertThrowsError(
            try authority.change(try UserName(user), current: { self.pin(current) }, new: { _ in self.pin("5913") })
        ) { XCTAssertEqual("\($0)", "\(SecureRoomError.tpm(.pruneNeeded))") }
        let set = try sandbox.cli(["set", user, "--stdin", "--allow-weak"], input: "8642\n")
        XCTAssertEqual(set.status, 0, "an administrator is not refused: " + set.errorOutput)
        XCTAssertEqual(try sandbox.cli(["tpm", "prune"], input: secret + "\n").status, 0)
        guard
            case .success = try authority.change(
                try UserName(user), current: { self.pin("8642") },
                new: { _ in
                    self.pin("5913")
                })
        else { return XCTFail("after the prune") }
    }
}
