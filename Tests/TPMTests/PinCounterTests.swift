// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CTSS2
import Foundation
import SecureRoomTestSupport
import XCTest

@testable import SecureRoomCore

/// A PIN's own failure counter in the chip (`PinCounter`, an NV index of type
/// TPM_NT_PIN_FAIL) and a secret sealed behind it (`PinSealer.seal(_:behind:)`), on a real
/// software TPM. What the chip counts is also read with tpm2-tools, not only through the
/// code under test. The groundwork of issue "Root cannot out-guess the chip", item 1.
final class PinCounterTests: XCTestCase {
    private var tpm: SoftwareTPM!
    /// An index in the owner's range.
    private let index: TPM2_HANDLE = 0x0180_5352

    override func setUpWithError() throws {
        setenv("TSS2_LOG", "all+none", 1)  // ESAPI logs expected TPM errors on stderr
        tpm = try SoftwareTPM(maxTries: 3)
    }

    override func tearDown() { tpm?.stop() }

    private func random(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 1...255) } }

    private func connected<T>(_ body: (TPMConnection) throws -> T) throws -> T {
        let connection = try TPMConnection(tcti: tpm.tcti)
        defer { connection.close() }
        return try body(connection)
    }

    private func counter(_ connection: TPMConnection) -> PinCounter { PinCounter(connection: connection, index: index) }

    private func unseal(_ blob: ObjectBlob, _ auth: [UInt8]) throws -> [UInt8] {
        try connected { try PinSealer(connection: $0).unseal(blob, behind: counter($0), authValue: auth) }
    }

    private func count(ownerAuth: [UInt8] = []) throws -> UInt32 {
        try connected { try counter($0).read(ownerAuth: ownerAuth) }.count
    }

    private func assertError(
        _ expected: String, _ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertTrue("\(error)".contains(expected), "expected \(expected), got \(error)", file: file, line: line)
        }
    }

    /// Wrong authValues raise the index's count, never the chip's dictionary-attack
    /// counter (here 3 tries: a DA-protected guess would have locked the chip); the right
    /// one unseals and clears the count; at the limit even the right one is refused, until
    /// the owner sets the count back.
    func testGuessesCountOnThePINsOwnIndexAndNotOnTheChip() throws {
        let (pin, secret) = (random(32), random(32))
        try connected { try counter($0).define(authValue: pin, limit: 3, ownerAuth: []) }
        let blob = try connected { try PinSealer(connection: $0).seal(secret, behind: counter($0)) }
        XCTAssertEqual(try blob.unmarshalPublic().publicArea.objectAttributes & TPMA_OBJECT_NODA, TPMA_OBJECT_NODA)

        assertError("wrong auth") { _ = try unseal(blob, random(32)) }
        assertError("wrong auth") { _ = try unseal(blob, random(32)) }
        XCTAssertEqual(try count(), 2)
        XCTAssertEqual(try unseal(blob, pin), secret)
        XCTAssertEqual(try count(), 0, "a right PIN clears its count")
        for _ in 0..<3 { assertError("wrong auth") { _ = try unseal(blob, random(32)) } }
        XCTAssertEqual(try count(), 3)
        assertError("reached its limit") { _ = try unseal(blob, pin) }
        XCTAssertEqual(try count(), 3, "a refusal at the limit counts nothing")
        XCTAssertEqual(try tpm.lockoutCounter(), 0, "five wrong PINs, none on the chip's counter")
        // The chip's own report of the index: ownerwrite|ownerread|no_da|written, type
        // PIN_FAIL (nt 8): TPMA_NV 0x22020082.
        let description = try tpm.tool(["tpm2_nvreadpublic", String(format: "0x%08x", index)])
        XCTAssertTrue(description.output.contains("value: 0x22020082"), description.output + description.errorOutput)

        try connected { try counter($0).reset(limit: 3, ownerAuth: []) }
        XCTAssertEqual(try unseal(blob, pin), secret)
        XCTAssertEqual(try tpm.leftoverHandles(), [])
    }

    /// Whoever has the owner authorization can undefine the index and define it again,
    /// with the same public area (so the same Name, the one the sealed object's policy
    /// names) under an authValue of their choosing, and unseal: with the factory state
    /// (empty owner authorization) root can. Once the owner authorization is a secret root
    /// does not have, neither undefining nor defining is possible, and the counter holds.
    func testOnlyTheOwnerAuthorizationStandsBetweenRootAndAForgedIndex() throws {
        let (pin, secret, chosen) = (random(32), random(32), random(32))
        try connected { try counter($0).define(authValue: pin, limit: 3, ownerAuth: []) }
        let blob = try connected { try PinSealer(connection: $0).seal(secret, behind: counter($0)) }
        try connected { connection in
            try counter(connection).undefine(ownerAuth: [])
            try counter(connection).define(authValue: chosen, limit: 3, ownerAuth: [])
        }
        XCTAssertEqual(try unseal(blob, chosen), secret, "the forgery works while the owner authorization is empty")

        // The owner authorization set to a secret, with tpm2-tools (as `harden` will).
        let owner = random(32)
        let hex = owner.map { String(format: "%02x", $0) }.joined()
        let changed = try tpm.tool(["tpm2_changeauth", "-c", "owner", "hex:" + hex])
        XCTAssertEqual(changed.status, 0, changed.errorOutput)
        assertError("wrong auth") { try connected { try counter($0).undefine(ownerAuth: []) } }
        assertError("wrong auth") { try connected { try counter($0).reset(limit: 3, ownerAuth: []) } }
        // tpm2-tools, independently of our sessions: root without the secret cannot undefine.
        let index = String(format: "0x%08x", self.index)
        XCTAssertNotEqual(try tpm.tool(["tpm2_nvundefine", index]).status, 0)
        XCTAssertEqual(try tpm.tool(["tpm2_nvreadpublic", index]).status, 0, "the index is still there")
        XCTAssertEqual(try count(ownerAuth: owner), 0)
        try connected { try counter($0).undefine(ownerAuth: owner) }
    }
}
