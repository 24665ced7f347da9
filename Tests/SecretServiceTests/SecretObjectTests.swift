// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import SecureRoomCore
import SecureRoomVault
import XCTest

@testable import SecureRoomSecretService

/// Object paths and the one error mapping.
final class SecretObjectTests: XCTestCase {
    func testPathsNameTheirObjects() {
        let id = [UInt8](repeating: 0xab, count: 32)
        XCTAssertEqual(SecretObject(path: "/org/freedesktop/secrets"), .service)
        for path in [
            "/org/freedesktop/secrets/collection/login", "/org/freedesktop/secrets/aliases/default",
            "/org/freedesktop/secrets/aliases/login",
        ] {
            XCTAssertEqual(SecretObject(path: path), .collection, path)
        }
        XCTAssertEqual(SecretObject(path: SecretObject.itemPath(id)), .item(id: id))
        XCTAssertEqual(
            SecretObject.itemPath(id), "/org/freedesktop/secrets/collection/login/" + String(repeating: "ab", count: 32)
        )
        XCTAssertEqual(
            SecretObject(path: "/org/freedesktop/secrets/session/12"),
            .session(path: "/org/freedesktop/secrets/session/12"))
        XCTAssertEqual(
            SecretObject(path: "/org/freedesktop/secrets/prompt/3"), .prompt(path: "/org/freedesktop/secrets/prompt/3"))
        for path in [
            "/org/freedesktop/secrets/aliases/session", "/org/freedesktop/secrets/collection/other",
            "/org/freedesktop/secrets/collection/login/" + String(repeating: "AB", count: 32),
            "/org/freedesktop/secrets/collection/login/abc", "/org/freedesktop/secrets/session/",
            "/org/freedesktop/secrets/session/1x", "/org/freedesktop/secrets/prompt/-1",
        ] {
            XCTAssertEqual(SecretObject(path: path), .unknown, path)
        }
    }

    func testEveryErrorBecomesADBusError() {
        let cases: [(Error, String)] = [
            (VaultError.locked(user: "u"), "org.freedesktop.Secret.Error.IsLocked"),
            (VaultError.invalid("x"), "org.freedesktop.DBus.Error.InvalidArgs"),
            (VaultError.noSuchItem, "org.freedesktop.Secret.Error.NoSuchObject"),
            (VaultError.missing(path: "/v"), "org.freedesktop.DBus.Error.Failed"),
            (VaultError.damaged("x"), "org.freedesktop.DBus.Error.Failed"),
            (SecureRoomError.invalidUserName("x"), "org.freedesktop.DBus.Error.Failed"),
            (BusFailure.noSession("x"), "org.freedesktop.Secret.Error.NoSession"),
        ]
        for (error, name) in cases { XCTAssertEqual(SecretService.failure(for: error).name, name, "\(error)") }
        XCTAssertTrue(
            SecretService.failure(for: VaultError.missing(path: "/v")).message.contains("secureroom-vault init"))
    }
}
