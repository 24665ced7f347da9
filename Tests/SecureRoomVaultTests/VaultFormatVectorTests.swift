import SecureRoomCore
import XCTest

@testable import SecureRoomVault

/// docs/FORMAT.md §9.1 and §9.2: sealed secrets in layouts 1 and 2, and attribute MACs,
/// computed independently (Python's cryptography).
final class VaultFormatVectorTests: XCTestCase {
    func testSealedSecretVector() throws {
        let dataKey = Array(UInt8(0x40)...UInt8(0x5f)).withUnsafeBytes { SecretBytes(copying: $0) }
        let cipher = VaultCipher(dataKey: dataKey, vaultID: Array(0xa0...0xaf))
        XCTAssertEqual(Hex.encode(cipher.keyCheck), "9c7093cb9ad1afcd9d0d30e2d2a72b4dacf2c95213419f78266ba317e950c379")
        let mac = cipher.titleMAC("github")
        XCTAssertEqual(Hex.encode(mac), "92a256b8cc38c0611dfd870fcbc3d29bf6effca3a83cd8d42e863cb76248fe99")
        let sealed = try XCTUnwrap(
            Hex.decode(
                "18191a1b1c1d1e1f20212223b64beb38a25eda18363069e7fdef91bc043b520"
                    + "fb711b0a2ad4105c16225b225c3ea91f69aea5ddeaafa4c19f978711c83a6",
                count: 62))
        let secret = try cipher.open(sealed, titleMAC: mac)
        XCTAssertEqual(secret.title, "github")
        XCTAssertEqual(secret.value.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }, "hunter2")
        XCTAssertEqual(secret.created, 1_795_000_000)
        XCTAssertEqual(secret.modified, 1_795_000_100)
        XCTAssertThrowsError(try cipher.open(sealed, titleMAC: cipher.titleMAC("gitlab")), "bound to its row")
    }

    func testLayoutTwoVectorWithLabelAndAttributes() throws {
        let dataKey = Array(UInt8(0x40)...UInt8(0x5f)).withUnsafeBytes { SecretBytes(copying: $0) }
        let cipher = VaultCipher(dataKey: dataKey, vaultID: Array(0xa0...0xaf))
        XCTAssertEqual(
            Hex.encode(cipher.attributeMAC(name: "service", value: "github.com")),
            "338bba52d20962606aa1c35406c829b1a922ce3e9c2875a65bb841be56e176a3")
        XCTAssertEqual(
            Hex.encode(cipher.attributeMAC(name: "user", value: "octocat")),
            "c290f4685b27800c8dce5c699ae6517824af67921e68ff8ce6d4cbe84fa16c23")
        let mac = cipher.titleMAC("github")
        let sealed = try XCTUnwrap(
            Hex.decode(
                "2425262728292a2b2c2d2e2f708fbf043a08626b6a8bb75a19eb3a7b2529b5ed"
                    + "2f9f6d3ded654e5705e0b3d5a461008f570f8a7075f245045dd7e8f220dacf0c"
                    + "f798483f6a06d2fe2f8b0143e38927c44f2fddbcc55f8f29ddef570044ab857e"
                    + "4727b3e8f80b965e30305eb448c9c93a280730882471dec76669d9877416d806"
                    + "3dfe223faf56ded971eacc0d",
                count: 140))
        let secret = try cipher.open(sealed, titleMAC: mac)
        XCTAssertEqual(secret.title, "github")
        XCTAssertEqual(secret.label, "GitHub token")
        XCTAssertEqual(secret.contentType, "text/plain")
        XCTAssertEqual(secret.attributes, ["service": "github.com", "user": "octocat"])
        XCTAssertEqual(secret.value.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }, "hunter2")
        XCTAssertEqual(secret.id, mac)
        // Resealed, it opens to the same secret (the nonce differs, so the bytes do).
        let resealed = try cipher.open(try cipher.seal(secret, titleMAC: mac), titleMAC: mac)
        XCTAssertEqual(resealed.label, "GitHub token")
        XCTAssertEqual(resealed.attributes, secret.attributes)
        // A flipped byte in the attribute area does not open.
        var altered = sealed
        altered[70] ^= 1
        XCTAssertThrowsError(try cipher.open(altered, titleMAC: mac))
    }
}
