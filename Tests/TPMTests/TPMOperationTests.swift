// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CTSS2
import Foundation
import SecureRoomTestSupport
import XCTest

@testable import SecureRoomCore
@testable import TPMESAPI

/// The TPM operations (TPMESAPI) against a real software TPM (swtpm), one fresh chip per test. What the
/// TPM itself counts and holds is read with tpm2-tools, not through the code under test.
final class TPMOperationTests: XCTestCase {
    private var tpm: SoftwareTPM!

    override func setUpWithError() throws {
        setenv("TSS2_LOG", "all+none", 1)  // ESAPI logs expected TPM errors on stderr
        tpm = try SoftwareTPM()
    }

    override func tearDown() { tpm?.stop() }

    private func random(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255) } }

    /// Runs `body` on a connection that is closed afterwards (swtpm serves one client).
    private func connected<T>(to chip: SoftwareTPM? = nil, _ body: (TPMConnection) throws -> T) throws -> T {
        let connection = try TPMConnection(tcti: (chip ?? tpm).tcti)
        defer { connection.close() }
        return try body(connection)
    }

    private func assertError(
        _ expected: String, _ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertTrue("\(error)".contains(expected), "expected \(expected), got \(error)", file: file, line: line)
        }
    }

    func testTheRightAuthValueUnsealsTheSecretOfAPolicyOnlyDAProtectedObject() throws {
        let (auth, secret) = (random(32), random(32))
        let blob = try connected { try PinSealer(connection: $0).seal(authValue: auth, secret: secret) }
        XCTAssertEqual(try connected { try PinSealer(connection: $0).unseal(blob, authValue: auth) }, secret)
        let attributes = try blob.unmarshalPublic().publicArea.objectAttributes
        XCTAssertEqual(
            attributes, TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT,
            "fixedTPM|fixedParent only: no userWithAuth (policy only), no noDA")
        XCTAssertEqual(
            Array(withUnsafeBytes(of: try blob.unmarshalPublic().publicArea.authPolicy.buffer) { $0.prefix(32) }),
            PolicyAuthValue.sha256Digest)
        XCTAssertEqual(try tpm.leftoverHandles(), [])
    }

    /// The TPM ignores trailing zero bytes of an authorization value: a value given with
    /// them stripped (as BoundKeys gives every one) seals and unseals.
    func testAnAuthValueWithoutItsTrailingZerosWorks() throws {
        let auth = Array(random(30)) + [0x01]
        let secret = random(32)
        let blob = try connected { try PinSealer(connection: $0).seal(authValue: auth, secret: secret) }
        XCTAssertEqual(try connected { try PinSealer(connection: $0).unseal(blob, authValue: auth) }, secret)
        XCTAssertEqual(try tpm.lockoutCounter(), 0)
    }

    func testAWrongAuthValueIsAFailedAuthorizationTheTPMCounts() throws {
        let auth = random(32)
        let blob = try connected { try PinSealer(connection: $0).seal(authValue: auth, secret: random(32)) }
        XCTAssertEqual(try tpm.lockoutCounter(), 0)
        assertError("wrong auth") {
            _ = try connected { try PinSealer(connection: $0).unseal(blob, authValue: random(32)) }
        }
        XCTAssertEqual(try tpm.lockoutCounter(), 1, "tpm2_getcap: TPM2_PT_LOCKOUT_COUNTER")
        XCTAssertEqual(try tpm.leftoverHandles(), [], "flushed on the error path too")
    }

    /// swtpm's dictionary-attack defaults: 3 tries. Then the right value is refused too,
    /// and DAStatus says so; the noDA tag key goes on working.
    func testInLockoutEvenTheRightAuthValueIsRefused() throws {
        let auth = random(32)
        let (blob, tagKey) = try connected { connection in
            (
                try PinSealer(connection: connection).seal(authValue: auth, secret: random(32)),
                try TagKey(connection: connection).create()
            )
        }
        let maximum = try connected { try DAStatus.read($0) }.maxAuthFail
        XCTAssertGreaterThan(maximum, 0)
        for _ in 0..<maximum {
            assertError("wrong auth") {
                _ = try connected { try PinSealer(connection: $0).unseal(blob, authValue: random(32)) }
            }
        }
        assertError("DA lockout") { _ = try connected { try PinSealer(connection: $0).unseal(blob, authValue: auth) } }
        let status = try connected { try DAStatus.read($0) }
        XCTAssertTrue(status.inLockout)
        XCTAssertEqual(status.lockoutCounter, maximum)
        XCTAssertEqual(try tpm.lockoutCounter(), Int(maximum))
        XCTAssertEqual(try connected { try TagKey(connection: $0).hmac(tagKey, data: [1, 2, 3]) }.count, 32)
    }

    func testBlobsFromAnotherTPMDoNotLoad() throws {
        let auth = random(32)
        let blob = try connected { try PinSealer(connection: $0).seal(authValue: auth, secret: random(32)) }
        let other = try SoftwareTPM()
        defer { other.stop() }
        assertError("storage key name differs") {
            _ = try connected(to: other) { try PinSealer(connection: $0).unseal(blob, authValue: auth) }
        }
        assertError("does not load on this TPM") {
            _ = try connected(to: other) {
                try PinSealer(connection: $0).unseal(blob, authValue: auth, verifyParent: false)
            }
        }
        XCTAssertEqual(try other.lockoutCounter(), 0, "no authorization was even tried")
        XCTAssertEqual(try other.leftoverHandles(), [])
    }

    func testTagsAreKeyedInsideTheTPM() throws {
        let (first, second) = try connected { connection in
            (try TagKey(connection: connection).create(), try TagKey(connection: connection).create())
        }
        let data = Array("a guess's argon2 output".utf8)
        let (a, again, b) = try connected { connection in
            let tags = TagKey(connection: connection)
            return (
                try tags.hmac(first, data: data), try tags.hmac(first, data: data), try tags.hmac(second, data: data)
            )
        }
        XCTAssertEqual(a, again)
        XCTAssertNotEqual(a, b, "another key, another tag")
        XCTAssertEqual(try tpm.leftoverHandles(), [])
    }

    func testATPMThatDiesMidWayIsAnErrorNotACrash() throws {
        let auth = random(32)
        let blob = try connected { try PinSealer(connection: $0).seal(authValue: auth, secret: random(32)) }
        let connection = try TPMConnection(tcti: tpm.tcti)
        defer { connection.close() }
        tpm.kill9()
        assertError("TPM unreachable") { _ = try PinSealer(connection: connection).unseal(blob, authValue: auth) }
        assertError("TPM unreachable") { _ = try TPMConnection(tcti: tpm.tcti) }
    }

    func testHardenSetsTheDAParametersOnceAndRefusesASecondTime() throws {
        let lockoutAuth = random(32)
        try connected {
            try LockoutHierarchy(connection: $0)
                .harden(maxTries: 5, recoverySeconds: 600, lockoutRecovery: 1200, newAuth: lockoutAuth)
        }
        let status = try connected { try DAStatus.read($0) }
        XCTAssertTrue(status.lockoutAuthSet)
        XCTAssertEqual(status.maxAuthFail, 5)
        XCTAssertEqual(status.lockoutInterval, 600)
        XCTAssertEqual(status.lockoutRecovery, 1200)
        assertError("lockout auth already set") {
            try connected {
                try LockoutHierarchy(connection: $0)
                    .harden(maxTries: 5, recoverySeconds: 600, lockoutRecovery: 1200, newAuth: lockoutAuth)
            }
        }
        // With it tpm2-tools resets the counter (first: a wrong one locks the lockout
        // hierarchy for lockoutRecovery).
        let withAuth = try tpm.tool([
            "tpm2_dictionarylockout", "--clear-lockout", "-p", "hex:" + Hex.encode(lockoutAuth),
        ])
        XCTAssertEqual(withAuth.status, 0, withAuth.errorOutput)
        let reset = try tpm.tool(["tpm2_dictionarylockout", "--clear-lockout"])
        XCTAssertNotEqual(reset.status, 0, "without the lockout authorization nobody resets the counter")
    }
}
