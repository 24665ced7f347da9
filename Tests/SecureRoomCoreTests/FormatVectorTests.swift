// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

@testable import SecureRoomCore
@testable import TPMESAPI

/// The test vectors of docs/vectors/ (docs/FORMAT.md §5), read as data: the key
/// derivations in derivation.txt, computed independently of SecureRoom (its header says
/// how), and one record file per case in credential/, lockout/, pepper/, recovery/, offer/ and
/// decoy-tpm/ —
/// NAME.ok must parse (and re-parse to the same record), NAME.bad must be refused as a
/// corrupt record. The same files seed the record fuzzers (Tests/reliability/fuzz.sh).
final class FormatVectorTests: XCTestCase {
    private static let directory = VectorFile.directory

    private func secret(_ vector: VectorFile.Vector, _ key: String) throws -> SecretBytes {
        try vector.bytes(key).withUnsafeBytes { SecretBytes(copying: $0) }
    }

    func testEveryDerivationVector() throws {
        let vectors = try VectorFile("derivation.txt").vectors
        XCTAssertEqual(vectors.count, 10)
        for vector in vectors {
            let about = vector.about
            switch vector.kind {
            case "pin-keys":
                let argon2 = try vector.text("argon2").split(separator: " ").compactMap { UInt32($0) }
                XCTAssertEqual(argon2.count, 3)
                let pin = Array(try vector.text("pin").utf8).withUnsafeBytes { SecretBytes(copying: $0) }
                let master = try PINKeys.master(
                    pin: pin, user: try UserName(try vector.text("user")),
                    salt: try vector.bytes("salt"), pepper: Pepper(bytes: try secret(vector, "pepper")),
                    parameters: KDFParameters(memoryKiB: argon2[0], iterations: argon2[1], lanes: argon2[2]))
                XCTAssertEqual(master.withUnsafeBytes { Hex.encode($0) }, try vector.text("master"), about)
                XCTAssertEqual(
                    PINKeys.verifier(master: master).withUnsafeBytes { Hex.encode($0) }, try vector.text("verifier"),
                    about)
                if vector.fields["guess-tag"] != nil {
                    XCTAssertEqual(Hex.encode(PINKeys.guessTag(master: master)), try vector.text("guess-tag"), about)
                }
            case "bound-master":
                XCTAssertEqual(
                    BoundKeys.master(try secret(vector, "material"), secret: try secret(vector, "secret"))
                        .withUnsafeBytes { Hex.encode($0) }, try vector.text("master"), about)
            case "pin-index-policy":
                XCTAssertEqual(Hex.encode(PinIndexPolicy.authPolicy), try vector.text("auth-policy"), about)
                XCTAssertEqual(Hex.encode(PinIndexPolicy.defineSpaceOnly), try vector.text("define-space-only"), about)
            case "sealed-behind-index":
                XCTAssertEqual(
                    Hex.encode(PinIndexPolicy.secret(try vector.bytes("index-name"))), try vector.text("policy"), about)
            case "sealed-to-boot":
                let pcrs = try XCTUnwrap(PCRPolicy.parseList(Substring(try vector.text("pcrs"))))
                let boot = PCRPolicy(pcrs: pcrs, digest: try vector.bytes("pcr-digest"))
                XCTAssertEqual(Hex.encode(boot.policyDigest()), try vector.text("pcr-policy"), about)
                XCTAssertEqual(
                    Hex.encode(PinIndexPolicy.secret(try vector.bytes("index-name"), after: boot.policyDigest())),
                    try vector.text("policy"), about)
            case "decoy-key":
                let decoy = PINKeys.decoy(
                    for: try UserName(try vector.text("user")), pepper: Pepper(bytes: try secret(vector, "pepper")))
                XCTAssertEqual([decoy.slot], try vector.bytes("slot"), about)
                XCTAssertEqual(decoy.salt, try vector.bytes("salt"), about)
            case "vault-key-under-pin":
                let user = try UserName(try vector.text("user"))
                let key = try XCTUnwrap(
                    VaultKey.unwrap(try vector.bytes("wrapped"), master: try secret(vector, "master"), user: user))
                XCTAssertEqual(key.withUnsafeBytes { Array($0) }, try vector.bytes("data-key"), about)
                XCTAssertNil(
                    VaultKey.unwrap(
                        try vector.bytes("wrapped"), master: try secret(vector, "master"),
                        user: try UserName(try vector.text("not-user"))), "bound to the user")
            case "vault-key-under-recovery-key":
                let typed = try vector.text("recovery-key")
                let recovery = try Array(typed.utf8).withUnsafeBytes { try RecoveryKey(typed: $0) }
                XCTAssertEqual(recovery.displayText, typed)
                let key = try XCTUnwrap(
                    VaultKey.unwrap(
                        try vector.bytes("wrapped"), recoveryKey: recovery, salt: try vector.bytes("salt"),
                        user: try UserName(try vector.text("user"))))
                XCTAssertEqual(key.withUnsafeBytes { Array($0) }, try vector.bytes("data-key"), about)
            default:
                XCTFail("unknown vector \(vector.kind)")
            }
        }
    }

    /// Each record kind's parser, as a function that parses and re-parses its output.
    private let parsers: [String: ([UInt8], String) throws -> Bool] = [
        "credential": { bytes, path in
            let record = try CredentialRecord(parsing: bytes, path: path)
            return try CredentialRecord(parsing: record.serialized(), path: path) == record
        },
        "lockout": { bytes, path in
            let record = try LockoutRecord(parsing: bytes, path: path)
            return try LockoutRecord(parsing: record.serialized(), path: path).serialized() == record.serialized()
        },
        "pepper": { bytes, path in
            let pepper = try Pepper(parsing: bytes, path: path)
            return pepper.serialized() == bytes
        },
        "recovery": { bytes, path in
            let record = try RecoveryRecord(parsing: bytes, path: path)
            return try RecoveryRecord(parsing: record.serialized(), path: path).serialized() == record.serialized()
        },
        "offer": { bytes, path in
            let record = try OfferRecord(parsing: bytes, path: path)
            return record.serialized() == bytes
        },
        "decoy-tpm": { bytes, path in
            try TPMDecoy(parsing: bytes, path: path).serialized() == bytes
        },
    ]

    func testEveryRecordVector() throws {
        var counts = (ok: 0, bad: 0)
        for (kind, parse) in parsers {
            let directory = Self.directory + "/" + kind
            for name in try FileManager.default.contentsOfDirectory(atPath: directory).sorted() {
                let path = directory + "/" + name
                let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
                if name.hasSuffix(".ok") {
                    XCTAssertTrue(try parse(bytes, path), "\(kind)/\(name) does not re-parse to the same record")
                    counts.ok += 1
                } else if name.hasSuffix(".bad") {
                    XCTAssertThrowsError(try parse(bytes, path), "\(kind)/\(name) was accepted") { error in
                        guard case SecureRoomError.corruptRecord = error else {
                            return XCTFail("\(kind)/\(name): \(error), not a corrupt record")
                        }
                    }
                    counts.bad += 1
                } else {
                    XCTFail("\(kind)/\(name): a vector is NAME.ok or NAME.bad")
                }
            }
        }
        XCTAssertGreaterThanOrEqual(counts.ok, 15)
        XCTAssertGreaterThanOrEqual(counts.bad, 27)
    }

    /// The pepper vector is the pepper the derivation vectors use.
    func testThePepperFileVectorHoldsTheDerivationPepper() throws {
        let path = Self.directory + "/pepper/format-vector.ok"
        let parsed = try Pepper(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: path))), path: path)
        let pepper = try XCTUnwrap(try VectorFile("derivation.txt").vectors.first).text("pepper")
        XCTAssertEqual(parsed.bytes.withUnsafeBytes { Hex.encode($0) }, pepper)
    }
}
