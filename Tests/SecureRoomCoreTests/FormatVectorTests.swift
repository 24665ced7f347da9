import Foundation
import XCTest

@testable import SecureRoomCore

/// The test vectors of docs/vectors/ (docs/FORMAT.md §5), read as data: the key
/// derivations in derivation.txt, computed independently of SecureRoom (its header says
/// how), and one record file per case in credential/, lockout/, pepper/, recovery/ and offer/ —
/// NAME.ok must parse (and re-parse to the same record), NAME.bad must be refused as a
/// corrupt record. The same files seed the record fuzzers (Tests/reliability/fuzz.sh).
final class FormatVectorTests: XCTestCase {
    private static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/vectors").path

    /// derivation.txt's blocks, each a dictionary of its lines.
    private func derivationVectors() throws -> [[String: String]] {
        let text = try String(contentsOfFile: Self.directory + "/derivation.txt", encoding: .utf8)
        return text.components(separatedBy: "\n\n").compactMap { block in
            var fields: [String: String] = [:]
            for line in block.split(separator: "\n") where !line.hasPrefix("#") {
                guard let colon = line.range(of: ": ") else { continue }
                fields[String(line[..<colon.lowerBound])] = String(line[colon.upperBound...])
            }
            return fields["vector"] == nil ? nil : fields
        }
    }

    private func bytes(_ vector: [String: String], _ key: String) throws -> [UInt8] {
        let text = try XCTUnwrap(vector[key], "\(vector["vector"] ?? "?"): no \(key)")
        return try XCTUnwrap(Hex.decode(Substring(text), count: text.count / 2), "\(key) is not hex")
    }

    private func secret(_ vector: [String: String], _ key: String) throws -> SecretBytes {
        try bytes(vector, key).withUnsafeBytes { SecretBytes(copying: $0) }
    }

    func testEveryDerivationVector() throws {
        let vectors = try derivationVectors()
        XCTAssertEqual(vectors.count, 5)
        for vector in vectors {
            let name = vector["vector"] ?? ""
            let about = vector["about"] ?? ""
            switch name {
            case "pin-keys":
                let argon2 = try XCTUnwrap(vector["argon2"]).split(separator: " ").compactMap { UInt32($0) }
                XCTAssertEqual(argon2.count, 3)
                let pin = Array(try XCTUnwrap(vector["pin"]).utf8).withUnsafeBytes { SecretBytes(copying: $0) }
                let master = try PINKeys.master(
                    pin: pin, user: try UserName(try XCTUnwrap(vector["user"])),
                    salt: try bytes(vector, "salt"), pepper: Pepper(bytes: try secret(vector, "pepper")),
                    parameters: KDFParameters(memoryKiB: argon2[0], iterations: argon2[1], lanes: argon2[2]))
                XCTAssertEqual(master.withUnsafeBytes { Hex.encode($0) }, vector["master"], about)
                XCTAssertEqual(
                    PINKeys.verifier(master: master).withUnsafeBytes { Hex.encode($0) }, vector["verifier"], about)
                if let tag = vector["guess-tag"] {
                    XCTAssertEqual(Hex.encode(PINKeys.guessTag(master: master)), tag, about)
                }
            case "bound-master":
                XCTAssertEqual(
                    BoundKeys.master(try secret(vector, "material"), secret: try secret(vector, "secret"))
                        .withUnsafeBytes { Hex.encode($0) }, vector["master"], about)
            case "vault-key-under-pin":
                let user = try UserName(try XCTUnwrap(vector["user"]))
                let key = try XCTUnwrap(
                    VaultKey.unwrap(try bytes(vector, "wrapped"), master: try secret(vector, "master"), user: user))
                XCTAssertEqual(key.withUnsafeBytes { Array($0) }, try bytes(vector, "data-key"), about)
                XCTAssertNil(
                    VaultKey.unwrap(
                        try bytes(vector, "wrapped"), master: try secret(vector, "master"),
                        user: try UserName(try XCTUnwrap(vector["not-user"]))), "bound to the user")
            case "vault-key-under-recovery-key":
                let typed = try XCTUnwrap(vector["recovery-key"])
                let recovery = try Array(typed.utf8).withUnsafeBytes { try RecoveryKey(typed: $0) }
                XCTAssertEqual(recovery.displayText, typed)
                let key = try XCTUnwrap(
                    VaultKey.unwrap(
                        try bytes(vector, "wrapped"), recoveryKey: recovery, salt: try bytes(vector, "salt"),
                        user: try UserName(try XCTUnwrap(vector["user"]))))
                XCTAssertEqual(key.withUnsafeBytes { Array($0) }, try bytes(vector, "data-key"), about)
            default:
                XCTFail("unknown vector \(name)")
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
        XCTAssertGreaterThanOrEqual(counts.ok, 12)
        XCTAssertGreaterThanOrEqual(counts.bad, 17)
    }

    /// The pepper vector is the pepper the derivation vectors use.
    func testThePepperFileVectorHoldsTheDerivationPepper() throws {
        let path = Self.directory + "/pepper/format-vector.ok"
        let parsed = try Pepper(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: path))), path: path)
        let pepper = try XCTUnwrap(try derivationVectors().first)["pepper"]
        XCTAssertEqual(parsed.bytes.withUnsafeBytes { Hex.encode($0) }, pepper)
    }
}
