// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CTSS2
import Foundation
import SecureRoomTestSupport
import XCTest

@testable import SecureRoomCore
@testable import TPMESAPI

/// A PIN's own failure counter in the chip (`PinCounter`, an NV index of type
/// TPM_NT_PIN_FAIL), a secret sealed behind it (`PinSealer.seal(_:behind:)`) and the owner
/// hierarchy that guards both (`OwnerHierarchy`), on a real software TPM. What the chip
/// holds is also read with tpm2-tools, not only through the code under test. Groundwork of
/// issue "Root cannot out-guess the chip" (docs/TPM-PIN-INDEX.notes.md §9–12).
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

    private func counter(_ connection: TPMConnection, _ index: TPM2_HANDLE? = nil) -> PinCounter {
        PinCounter(connection: connection, index: index ?? self.index)
    }

    private func unseal(_ blob: ObjectBlob, _ auth: [UInt8]) throws -> [UInt8] {
        try connected { try PinSealer(connection: $0).unseal(blob, behind: counter($0), authValue: auth) }
    }

    private func count() throws -> UInt32 { try connected { try counter($0).read() }.count }

    private func assertError(
        _ expected: String, _ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertTrue("\(error)".contains(expected), "expected \(expected), got \(error)", file: file, line: line)
        }
    }

    private var hexIndex: String { String(format: "0x%08x", index) }

    /// Wrong authValues raise the index's count, never the chip's dictionary-attack
    /// counter (here 3 tries: a DA-protected guess would have locked the chip); the right
    /// one unseals and clears the count; at the limit even the right one is refused, until
    /// the owner sets the count back. Anyone reads the count, which counts nothing.
    func testGuessesCountOnThePINsOwnIndexAndNotOnTheChip() throws {
        let (pin, secret) = (random(32), random(32))
        try connected { try counter($0).define(authValue: pin, limit: 3, by: .ownerAuth([])) }
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
        // The chip's own report of the index: policywrite|policyread|no_da|written, type
        // PIN_FAIL (nt 8): TPMA_NV 0x22080088.
        let description = try tpm.tool(["tpm2_nvreadpublic", hexIndex])
        XCTAssertTrue(description.output.contains("value: 0x22080088"), description.output + description.errorOutput)

        try connected { try counter($0).reset(limit: 3, ownerAuth: []) }
        XCTAssertEqual(try unseal(blob, pin), secret)
        // Without the persistent storage key an owner secret would travel in a password
        // session (the transient key is made under the owner): refused, nothing sent; and
        // an owner cannot be hardened before that key is persisted.
        assertError("persistent storage key") {
            try connected { try counter($0).reset(limit: 3, ownerAuth: random(32)) }
        }
        assertError("persist the storage key first") {
            try connected { try OwnerHierarchy(connection: $0).restrictToDefiningIndices(newAuth: random(32)) }
        }
        XCTAssertEqual(try tpm.leftoverHandles(), [])
    }

    /// The counter is written once by anyone (its first write) and then only through the
    /// owner: neither the first-write branch again, nor the owner's plain write, nor the
    /// owner branch with a wrong authorization sets it back.
    func testTheCounterIsWrittenOnceAndThenOnlyByTheOwner() throws {
        let owner = random(32)
        try connected { try OwnerHierarchy(connection: $0).persistStorageKey() }
        try connected { try counter($0).define(authValue: random(32), limit: 5, by: .ownerAuth([])) }
        let blob = try connected { try PinSealer(connection: $0).seal(random(32), behind: counter($0)) }
        try connected { try OwnerHierarchy(connection: $0).restrictToDefiningIndices(newAuth: owner) }
        for _ in 0..<2 { assertError("wrong auth") { _ = try unseal(blob, random(32)) } }
        XCTAssertEqual(try count(), 2)
        assertError("policy") { try connected { try counter($0).write(count: 0, limit: 100, through: .firstWrite) } }
        assertError("wrong auth") { try connected { try counter($0).reset(limit: 100, ownerAuth: random(32)) } }
        let plain = try tpm.tool(["tpm2_nvwrite", "-C", "o", "-i", "/dev/zero", hexIndex])
        XCTAssertNotEqual(plain.status, 0, "the owner's plain write: \(plain.output)")
        XCTAssertEqual(try connected { try counter($0).read() }.count, 2)
        XCTAssertEqual(try connected { try counter($0).read() }.limit, 5)
        try connected { try counter($0).reset(limit: 5, ownerAuth: owner) }
        XCTAssertEqual(try count(), 0, "the holder of the owner secret sets it back")
        XCTAssertEqual(try tpm.leftoverHandles(), [])
    }

    /// Hardened (the owner's authorization a secret, its policy NV_DefineSpace alone):
    /// PINs are still bound without the secret, on the persistent storage key, and root
    /// without it can neither undefine an index nor set its count back nor create a
    /// primary. With the factory state (empty owner authorization) the forgery works.
    func testAHardenedOwnerDefinesIndicesAndRemovesNone() throws {
        let (pin, secret, chosen, owner) = (random(32), random(32), random(32), random(32))
        try connected { try counter($0).define(authValue: pin, limit: 3, by: .ownerAuth([])) }
        let unhardened = try connected { try PinSealer(connection: $0).seal(secret, behind: counter($0)) }
        try connected { connection in
            try counter(connection).undefine(ownerAuth: [])
            try counter(connection).define(authValue: chosen, limit: 3, by: .ownerAuth([]))
        }
        XCTAssertEqual(
            try unseal(unhardened, chosen), secret, "the forgery works while the owner authorization is empty")
        try connected { try counter($0).undefine(ownerAuth: []) }

        try connected { connection in
            let hierarchy = OwnerHierarchy(connection: connection)
            try hierarchy.persistStorageKey()
            try hierarchy.restrictToDefiningIndices(newAuth: owner)
        }
        try connected { try counter($0).define(authValue: pin, limit: 3, by: .defineSpacePolicy) }
        let blob = try connected { try PinSealer(connection: $0).seal(secret, behind: counter($0)) }
        XCTAssertEqual(try unseal(blob, pin), secret)
        assertError("wrong auth") { try connected { try counter($0).undefine(ownerAuth: []) } }
        assertError("wrong auth") { try connected { try counter($0).reset(limit: 3, ownerAuth: []) } }
        XCTAssertNotEqual(try tpm.tool(["tpm2_nvundefine", hexIndex]).status, 0, "tpm2-tools without the secret")
        XCTAssertNotEqual(try tpm.tool(["tpm2_createprimary", "-C", "o", "-c", "/dev/null"]).status, 0)
        assertError("already defined") {
            try connected { try counter($0).define(authValue: chosen, limit: 3, by: .defineSpacePolicy) }
        }
        XCTAssertEqual(try unseal(blob, pin), secret, "the index is still the one the secret names")
        try connected { try counter($0).undefine(ownerAuth: owner) }
        XCTAssertEqual(try tpm.leftoverHandles(), [])
    }

    /// An open platform hierarchy (swtpm's, empty authorization) undoes the hardening: it
    /// undefines the index, and the owner's policy then lets root define it again with the
    /// same Name under an authValue of its choice. Firmware closes it at every boot; the
    /// probe tells which.
    func testAnOpenPlatformHierarchyForgesAndAClosedOneDoesNot() throws {
        let (pin, secret, chosen, owner) = (random(32), random(32), random(32), random(32))
        try connected { connection in
            let hierarchy = OwnerHierarchy(connection: connection)
            try hierarchy.persistStorageKey()
            try hierarchy.restrictToDefiningIndices(newAuth: owner)
            XCTAssertTrue(try hierarchy.platformHierarchyIsOpen())
        }
        try connected { try counter($0).define(authValue: pin, limit: 3, by: .defineSpacePolicy) }
        let blob = try connected { try PinSealer(connection: $0).seal(secret, behind: counter($0)) }
        let name = try connected { try counter($0).name() }
        XCTAssertEqual(try tpm.tool(["tpm2_nvundefine", "-C", "p", hexIndex]).status, 0)
        try connected { try counter($0).define(authValue: chosen, limit: 3, by: .defineSpacePolicy) }
        XCTAssertEqual(try connected { try counter($0).name() }, name, "the same Name")
        XCTAssertEqual(try unseal(blob, chosen), secret, "forged through the platform hierarchy")

        XCTAssertEqual(try tpm.tool(["tpm2_hierarchycontrol", "-C", "p", "phEnable", "clear"]).status, 0)
        XCTAssertFalse(try connected { try OwnerHierarchy(connection: $0).platformHierarchyIsOpen() })
        XCTAssertNotEqual(try tpm.tool(["tpm2_nvundefine", "-C", "p", hexIndex]).status, 0)
        XCTAssertEqual(try tpm.leftoverHandles(), [])
    }
}
