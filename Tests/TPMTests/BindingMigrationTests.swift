// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

@testable import SecureRoomCore
@testable import TPMESAPI

/// A PIN bound by SecureRoom 0.2 (version 2: sealed under PolicyAuthValue, wrong PINs on
/// the chip's dictionary-attack counter) is checked as before and, at its next right PIN
/// through the real libpam, bound again to its own counter (version 3) and marked
/// must-change (docs/FORMAT.md §3).
final class BindingMigrationTests: XCTestCase {
    private let user = "daemon"
    private let pin = "6193"

    /// The version 2 record 0.2 would have written for `pin`, made with the core's own
    /// pieces on `tpm`.
    private func versionTwoRecord(state: String, tpm: SoftwareTPM) throws -> [UInt8] {
        let pepperPath = state + "/pepper"
        let pepper = try Pepper(
            parsing: Array(try Data(contentsOf: URL(fileURLWithPath: pepperPath))), path: pepperPath)
        let parameters = KDFParameters(memoryKiB: 256, iterations: 1, lanes: 1)
        let salt = try randomSalt()
        let name = try UserName(user)
        let material = try PINKeys.boundMaterial(
            pin: Array(pin.utf8).withUnsafeBytes { SecretBytes(copying: $0) }, user: name, salt: salt,
            pepper: pepper, parameters: parameters)
        let secret = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let connection = try TPMConnection(tcti: tpm.tcti)
        defer { connection.close() }
        let binding = try BoundKeys.withAuth(material) { auth in
            AuthValueBinding(
                sealed: try PinSealer(connection: connection).seal(authValue: auth, secret: secret),
                tagKey: try TagKey(connection: connection).create())
        }
        let master = BoundKeys.master(material, secret: secret.withUnsafeBytes { SecretBytes(copying: $0) })
        return CredentialRecord(
            user: name, parameters: parameters, salt: salt,
            verifier: PINKeys.verifier(master: master).withUnsafeBytes { Array($0) }, digits: 4,
            created: 1_795_000_000, binding: .authValue(binding)
        ).serialized()
    }

    func testAVersionTwoPINIsBoundToItsOwnCounterAtItsNextRightPIN() throws {
        setenv("TSS2_LOG", "all+none", 1)
        let tpm = try SoftwareTPM()
        defer { tpm.stop() }
        let sandbox = try Sandbox(configuration: tpm.requiredConfiguration)
        try sandbox.setPIN(user, pin: "2468")
        try sandbox.probeService()
        let path = "\(sandbox.state)/users/\(user).credential"
        let old = try versionTwoRecord(state: sandbox.state, tpm: tpm)
        try sandbox.write(path, String(decoding: old, as: UTF8.self), mode: 0o600)
        XCTAssertEqual(try sandbox.status(user)["tpm"] as? String, "bound-shared")

        XCTAssertEqual(try sandbox.pam(user: user, responses: ["1470"]).code, PAMCode.authError)
        XCTAssertEqual(try tpm.lockoutCounter(), 1, "version 2: the chip's own counter")
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success)
        let record = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(record.hasPrefix("SECUREROOM-CREDENTIAL/3\n"), record)
        let status = try sandbox.status(user)
        XCTAssertEqual(status["tpm"] as? String, "bound")
        XCTAssertNotNil(status["must_change"] as? String, "a PIN bound again must be changed")

        XCTAssertEqual(try sandbox.pam(user: user, responses: ["1470"]).code, PAMCode.authError)
        XCTAssertEqual(try sandbox.status(user)["tpm_failures"] as? Int, 1, "version 3: the PIN's own counter")
        XCTAssertEqual(try tpm.lockoutCounter(), 1, "nothing more on the chip's")
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success)
    }
}
