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

    func testGuessTagVector() throws {
        let wrong = Array("1357".utf8).withUnsafeBytes { SecretBytes(copying: $0) }
        XCTAssertEqual(Hex.encode(PINKeys.guessTag(pin: wrong, user: try UserName("alice"), salt: salt, pepper: pepper)),
                       "71c307765e0c6540016b02b4e96796d9")
    }

    func testPepperFileVector() throws {
        let text = "SECUREROOM-PEPPER/1\npepper: 202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f\n"
        XCTAssertEqual(pepper.serialized(), Array(text.utf8))
        let parsed = try Pepper(parsing: Array(text.utf8), path: "t")
        XCTAssertTrue(parsed.bytes.constantTimeEquals(pepper.bytes))
    }
}
