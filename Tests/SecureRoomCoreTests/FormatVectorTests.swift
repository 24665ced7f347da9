import XCTest
@testable import SecureRoomCore

/// The test vectors of docs/FORMAT.md §5. They were computed independently (the argon2
/// reference implementation through argon2-cffi's context binding, HKDF and HMAC from
/// Python's standard cryptography); this test holds our implementation to them.
final class FormatVectorTests: XCTestCase {
    private let pepper = Pepper(bytes: Array(0x20...0x3f as ClosedRange<UInt8>).withUnsafeBytes { SecretBytes(copying: $0) })
    private let salt = Array(0x00...0x0f as ClosedRange<UInt8>)
    private let pin = Array("7391".utf8).withUnsafeBytes { SecretBytes(copying: $0) }

    private func keys(_ parameters: KDFParameters) throws -> (master: String, verifier: String) {
        let master = try PINKeys.master(pin: pin, user: try UserName("alice"), salt: salt, pepper: pepper,
                                        parameters: parameters)
        return (master.withUnsafeBytes { Hex.encode($0) },
                PINKeys.verifier(master: master).withUnsafeBytes { Hex.encode($0) })
    }

    func testVectorAtTheDefaultParameters() throws {
        let (master, verifier) = try keys(.defaults)
        XCTAssertEqual(master, "94c5864173b39af618942adab6d2b6201f901c81a4147418cfef11da4009d3fa")
        XCTAssertEqual(verifier, "3a66ed0b07eac67b7a0897eb75f8bd7492b36216541b4bfe875d18d5cafc504d")
    }

    func testVectorAtSmallParameters() throws {
        let (master, verifier) = try keys(KDFParameters(memoryKiB: 256, iterations: 1, lanes: 1))
        XCTAssertEqual(master, "7b4f29228ec55aad8fbe947d775fb7ebb2453dcab43b6151a378d09823fed10d")
        XCTAssertEqual(verifier, "cc409c0706de3ec5b2e3e7965c790aa1857ba9e77cdced23f1658cc9c8c7a361")
    }

    /// FORMAT.md §5: the tag of a guess is derived from that guess's argon2 output (here
    /// the m=256 row's master), computed independently with Python's hmac module.
    func testGuessTagVector() throws {
        let (master, _) = try keys(KDFParameters(memoryKiB: 256, iterations: 1, lanes: 1))
        let bytes = try XCTUnwrap(Hex.decode(Substring(master), count: 32))
        XCTAssertEqual(Hex.encode(PINKeys.guessTag(master: bytes.withUnsafeBytes { SecretBytes(copying: $0) })),
                       "b453817ad3f6aaf6c451bc8d5a2b827b")
    }

    /// FORMAT.md §2.1: a bound record's master from the local half and the unsealed
    /// secret (computed independently with Python's hmac/hashlib). The auth half does not
    /// enter it: it only authorizes the unseal.
    func testBoundMasterVector() throws {
        let material = (Array(0x00...0x1f) + Array(repeating: 0xee, count: 32) as [UInt8]).withUnsafeBytes { SecretBytes(copying: $0) }
        let secret = Array(0x60...0x7f as ClosedRange<UInt8>).withUnsafeBytes { SecretBytes(copying: $0) }
        XCTAssertEqual(BoundKeys.master(material, secret: secret).withUnsafeBytes { Hex.encode($0) },
                       "373749b8d031cda84f7c94913e6b4bc5c2fd50ab71c9b429a4060f141f995632")
    }

    func testPepperFileVector() throws {
        let text = "SECUREROOM-PEPPER/1\npepper: 202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f\n"
        XCTAssertEqual(pepper.serialized(), Array(text.utf8))
        let parsed = try Pepper(parsing: Array(text.utf8), path: "t")
        XCTAssertTrue(parsed.bytes.constantTimeEquals(pepper.bytes))
    }

    /// docs/FORMAT.md §7.1: the PIN-wrapped and the recovery-wrapped data key, computed
    /// independently (Python's cryptography package).
    func testVaultKeyVectors() throws {
        let master = try XCTUnwrap(Hex.decode("7b4f29228ec55aad8fbe947d775fb7ebb2453dcab43b6151a378d09823fed10d", count: 32)).withUnsafeBytes { SecretBytes(copying: $0) }
        let alice = try UserName("alice")
        let wrapped = try XCTUnwrap(Hex.decode("000102030405060708090a0b0cb71a6f2c7c3136e1defa4a7ebddacd86d2b1e86dab09b7ba0961e7d12ac1c7b4c7cbcd5757c627ecdbe0b42c09a558", count: 60))
        let dek = try XCTUnwrap(VaultKey.unwrap(wrapped, master: master, user: alice))
        XCTAssertEqual(dek.withUnsafeBytes { Array($0) }, Array(0x40...0x5f))
        XCTAssertNil(VaultKey.unwrap(wrapped, master: master, user: try UserName("bob")), "bound to the user")

        let recovery = try Array("01234-56789-01234-56789-01234-56789-01234-56789".utf8).withUnsafeBytes { try RecoveryKey(typed: $0) }
        let recoveryWrapped = try XCTUnwrap(Hex.decode("0c0d0e0f1011121314151617f3a1b2cfbb8d9e2489718d25917316465cfc58787dc20be959bf52eb59110add154abcd76424aad7082354117d639114", count: 60))
        let recovered = try XCTUnwrap(VaultKey.unwrap(recoveryWrapped, recoveryKey: recovery, salt: Array(0x10...0x1f), user: alice))
        XCTAssertEqual(recovered.withUnsafeBytes { Array($0) }, Array(0x40...0x5f))
        XCTAssertEqual(recovery.displayText, "01234-56789-01234-56789-01234-56789-01234-56789")
        XCTAssertThrowsError(try Array("0123".utf8).withUnsafeBytes { try RecoveryKey(typed: $0) })
    }
}
