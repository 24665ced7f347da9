// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomCrypto
import CSecureRoomTransferCrypto
import SecureRoomCore
import XCTest

@testable import SecureRoomSecretService

/// The transfer algorithm's parts against published vectors, and its refusals. The whole
/// exchange with real clients (libsecret, SecretStorage) is Tests/e2e/secret-service.sh.
final class TransferSessionTests: XCTestCase {
    private func bytes(_ hex: String) -> [UInt8] {
        stride(from: 0, to: hex.count, by: 2).map {
            let start = hex.index(hex.startIndex, offsetBy: $0)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16) ?? 0
        }
    }

    private func secret(_ array: [UInt8]) -> SecretBytes { array.withUnsafeBytes { SecretBytes(copying: $0) } }

    /// RFC 2409 §6.2, the Second Oakley Group: the group libsecret and gnome-keyring use.
    private let prime = """
        ffffffffffffffffc90fdaa22168c234c4c6628b80dc1cd129024e088a67cc74020bbea63b139b22514a08798e3404dd\
        ef9519b3cd3a431b302b0a6df25f14374fe1356d6d51c245e485b576625e7ec6f44c42e9a637ed6b0bff5cb6f406b7ed\
        ee386bfb5a899fa5ae9f24117c4b1fe649286651ece65381ffffffffffffffff
        """

    func testAES128CBCMatchesSP800_38A() {
        // NIST SP 800-38A F.2.1: the first block, then PKCS#7 adds a block of 16 × 0x10.
        let key = bytes("2b7e151628aed2a6abf7158809cf4f3c")
        let iv = bytes("000102030405060708090a0b0c0d0e0f")
        let plain = bytes("6bc1bee22e409f96e93d7e117393172a")
        var out = [UInt8](repeating: 0, count: 32)
        var length = 0
        XCTAssertEqual(sr_aes128_cbc(1, key, iv, plain, plain.count, &out, &length), 1)
        XCTAssertEqual(length, 32)
        XCTAssertEqual(Array(out[0..<16]), bytes("7649abac8119b246cee98e9b12e9197d"))
        var back = [UInt8](repeating: 0, count: 48)
        XCTAssertEqual(sr_aes128_cbc(0, key, iv, out, 32, &back, &length), 1)
        XCTAssertEqual(Array(back[0..<length]), plain)
        out[31] ^= 0x01
        XCTAssertEqual(sr_aes128_cbc(0, key, iv, out, 32, &back, &length), 0, "bad padding is refused")
    }

    func testSessionKeyDerivationIsHKDFWithoutSaltOrInfo() {
        // RFC 5869 A.3 (empty salt and info): the first 16 bytes are the AES key.
        let ikm = [UInt8](repeating: 0x0b, count: 22)
        var okm = [UInt8](repeating: 0, count: 16)
        XCTAssertEqual(sr_hkdf_sha256(ikm, ikm.count, nil, 0, nil, 0, &okm, okm.count), 1)
        XCTAssertEqual(okm, bytes("8da4e775a563c18f715f802a063c5a31"))
    }

    /// A session negotiated from a valid public key carries secrets both ways, each with a
    /// fresh IV. (That a real client derives the same key is shown by libsecret and
    /// SecretStorage in Tests/e2e/secret-service.sh.)
    func testSecretsRoundTripInANegotiatedSession() throws {
        // A valid public key in the group: g^x for a fresh x (the primitive's own "public key" output).
        var clientPublic = [UInt8](repeating: 0, count: 128)
        var unused = [UInt8](repeating: 0, count: 128)
        XCTAssertEqual(sr_dh_ietf1024([2], 1, &clientPublic, &unused), 1)
        let (session, providerPublic) = try TransferSession.negotiate(
            owner: ":1.1", peerPublicKey: secret(clientPublic))
        XCTAssertEqual(providerPublic.count, 128)
        XCTAssertNotEqual(providerPublic, clientPublic)
        XCTAssertEqual(session.algorithm, .dhAES)
        let (parameters, value) = try session.encode(secret(Array("hunter2".utf8)))
        XCTAssertEqual(parameters.count, 16)
        XCTAssertEqual(value.count, 16)
        let decoded = try session.decode(parameters: secret(parameters), value: value)
        XCTAssertEqual(decoded.withUnsafeBytes { Array($0) }, Array("hunter2".utf8))
        let (againParameters, _) = try session.encode(secret(Array("hunter2".utf8)))
        XCTAssertNotEqual(againParameters, parameters, "each secret gets a fresh IV")
    }

    func testOutOfGroupPublicKeysAreRefused() throws {
        let p = bytes(prime)
        var pMinusOne = p
        pMinusOne[127] -= 1
        let bad: [(String, [UInt8])] = [
            ("empty", []), ("zero", [0]), ("one", [1]), ("p - 1", pMinusOne), ("p", p),
            ("129 bytes", [1] + [UInt8](repeating: 0, count: 128)),
        ]
        for (name, key) in bad {
            XCTAssertThrowsError(try TransferSession.negotiate(owner: ":1.1", peerPublicKey: secret(key)), name) {
                XCTAssertEqual(($0 as? BusFailure)?.name, "org.freedesktop.DBus.Error.InvalidArgs", name)
            }
        }
    }

    func testMalformedSecretsAreInvalidArguments() throws {
        var clientPublic = [UInt8](repeating: 0, count: 128)
        var unused = [UInt8](repeating: 0, count: 128)
        XCTAssertEqual(sr_dh_ietf1024([2], 1, &clientPublic, &unused), 1)
        let (session, _) = try TransferSession.negotiate(owner: ":1.1", peerPublicKey: secret(clientPublic))
        let cases: [([UInt8], [UInt8])] = [
            ([], [UInt8](repeating: 0, count: 16)),
            ([UInt8](repeating: 0, count: 15), [UInt8](repeating: 0, count: 16)),
            ([UInt8](repeating: 0, count: 16), []),
            ([UInt8](repeating: 0, count: 16), [UInt8](repeating: 0, count: 17)),
        ]
        for (parameters, value) in cases {
            XCTAssertThrowsError(try session.decode(parameters: secret(parameters), value: secret(value))) {
                XCTAssertEqual(($0 as? BusFailure)?.name, "org.freedesktop.DBus.Error.InvalidArgs")
            }
        }
        let plain = TransferSession.plain(owner: ":1.1")
        XCTAssertThrowsError(try plain.decode(parameters: secret([1]), value: secret([1])))
        XCTAssertEqual(
            try plain.decode(parameters: secret([]), value: secret([0, 255])).withUnsafeBytes { Array($0) }, [0, 255])
    }
}
