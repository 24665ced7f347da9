// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import SecureRoomCore
import SecureRoomTestSupport
import XCTest

@testable import SecureRoomVault

/// docs/vectors/vault.txt (docs/FORMAT.md §9.1, §9.2): the key check, title and attribute
/// MACs, and sealed secrets in layouts 1 and 2, computed independently (the file's header
/// says with what), with their negative cases.
final class VaultFormatVectorTests: XCTestCase {
    private func cipher(_ vector: VectorFile.Vector) throws -> VaultCipher {
        let dataKey = try vector.bytes("data-key").withUnsafeBytes { SecretBytes(copying: $0) }
        return VaultCipher(dataKey: dataKey, vaultID: try vector.bytes("vault-id"))
    }

    func testEveryVaultVector() throws {
        let vectors = try VectorFile("vault.txt").vectors
        XCTAssertEqual(vectors.count, 3)
        for vector in vectors {
            let about = vector.about
            let cipher = try cipher(vector)
            switch vector.kind {
            case "vault-keys":
                XCTAssertEqual(Hex.encode(cipher.keyCheck), try vector.text("key-check"), about)
                XCTAssertEqual(
                    Hex.encode(cipher.titleMAC(try vector.text("title"))), try vector.text("title-mac"), about)
            case "sealed-secret":
                try checkSealedSecret(vector, cipher)
            default:
                XCTFail("unknown vector \(vector.kind)")
            }
        }
    }

    private func checkSealedSecret(_ vector: VectorFile.Vector, _ cipher: VaultCipher) throws {
        let about = vector.about
        var attributes: [String: String] = [:]
        for line in vector.fields["attribute"] ?? [] {
            let parts = line.split(separator: " ")
            let pair = try XCTUnwrap(parts.first?.split(separator: "=", maxSplits: 1), about)
            XCTAssertEqual(
                Hex.encode(cipher.attributeMAC(name: String(pair[0]), value: String(pair[1]))), String(parts[1]),
                about)
            attributes[String(pair[0])] = String(pair[1])
        }
        let title = try vector.text("title")
        let mac = cipher.titleMAC(title)
        let sealed = try vector.bytes("sealed")
        let secret = try cipher.open(sealed, titleMAC: mac)
        XCTAssertEqual(secret.title, title, about)
        XCTAssertEqual(secret.label, vector.fields["label"]?.first ?? title, about)
        XCTAssertEqual(secret.contentType, vector.fields["content-type"]?.first ?? "text/plain", about)
        XCTAssertEqual(secret.attributes, attributes, about)
        XCTAssertEqual(
            secret.value.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }, try vector.text("value"), about)
        XCTAssertEqual(secret.created, Int64(try vector.text("created")), about)
        XCTAssertEqual(secret.modified, Int64(try vector.text("modified")), about)
        XCTAssertEqual(secret.id, mac, about)
        // Resealed, it opens to the same secret (the nonce differs, so the bytes do).
        let resealed = try cipher.open(try cipher.seal(secret, titleMAC: mac), titleMAC: mac)
        XCTAssertEqual(resealed.label, secret.label, about)
        XCTAssertEqual(resealed.attributes, secret.attributes, about)
        // The negative cases: bound to its row, and to every byte.
        if let other = vector.fields["not-title"]?.first {
            XCTAssertThrowsError(
                try cipher.open(sealed, titleMAC: cipher.titleMAC(other)), "\(about): bound to its row")
        }
        if let flip = vector.fields["flip-byte"]?.first.flatMap({ Int($0) }) {
            var altered = sealed
            altered[flip] ^= 1
            XCTAssertThrowsError(try cipher.open(altered, titleMAC: mac), "\(about): byte \(flip) flipped")
        }
    }
}
