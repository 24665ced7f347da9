@testable import SecureRoomVault
import SecureRoomCore
import XCTest

/// docs/FORMAT.md §9.1: one sealed secret, computed independently (Python's cryptography).
final class VaultFormatVectorTests: XCTestCase {
    func testSealedSecretVector() throws {
        let dataKey = Array(UInt8(0x40)...UInt8(0x5f)).withUnsafeBytes { SecretBytes(copying: $0) }
        let cipher = VaultCipher(dataKey: dataKey, vaultID: Array(0xa0...0xaf))
        XCTAssertEqual(Hex.encode(cipher.keyCheck), "9c7093cb9ad1afcd9d0d30e2d2a72b4dacf2c95213419f78266ba317e950c379")
        let mac = cipher.titleMAC("github")
        XCTAssertEqual(Hex.encode(mac), "92a256b8cc38c0611dfd870fcbc3d29bf6effca3a83cd8d42e863cb76248fe99")
        let sealed = try XCTUnwrap(Hex.decode("18191a1b1c1d1e1f20212223b64beb38a25eda18363069e7fdef91bc043b520fb711b0a2ad4105c16225b225c3ea91f69aea5ddeaafa4c19f978711c83a6", count: 62))
        let secret = try cipher.open(sealed, titleMAC: mac)
        XCTAssertEqual(secret.title, "github")
        XCTAssertEqual(secret.value.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }, "hunter2")
        XCTAssertEqual(secret.created, 1_795_000_000)
        XCTAssertEqual(secret.modified, 1_795_000_100)
        XCTAssertThrowsError(try cipher.open(sealed, titleMAC: cipher.titleMAC("gitlab")), "bound to its row")
    }
}
