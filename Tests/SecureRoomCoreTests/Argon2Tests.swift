// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import SecureRoomCore

final class Argon2Tests: XCTestCase {
    /// Without pepper or associated data our wrapper must agree with the reference
    /// `argon2` command (Debian package argon2) byte for byte.
    func testAgreesWithTheReferenceCommand() throws {
        let password = Array("7391".utf8).withUnsafeBytes { SecretBytes(copying: $0) }
        let ours = try Argon2id.derive(
            password: password, salt: Array("somesaltsomesalt".utf8), secret: SecretBytes(count: 0),
            associatedData: [], parameters: KDFParameters(memoryKiB: 4096, iterations: 3, lanes: 2))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/argon2")
        process.arguments = ["somesaltsomesalt", "-id", "-t", "3", "-k", "4096", "-p", "2", "-l", "32", "-r"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data("7391".utf8))
        try input.fileHandleForWriting.close()
        let reference = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(
            ours.withUnsafeBytes { Hex.encode($0) }, reference.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    func testPepperAndUserChangeTheOutput() throws {
        let pin = Array("7391".utf8).withUnsafeBytes { SecretBytes(copying: $0) }
        let parameters = KDFParameters(memoryKiB: 64, iterations: 1, lanes: 1)
        let salt = Array(repeating: UInt8(7), count: 16)
        let pepperA = Pepper(bytes: Array(repeating: UInt8(1), count: 32).withUnsafeBytes { SecretBytes(copying: $0) })
        let pepperB = Pepper(bytes: Array(repeating: UInt8(2), count: 32).withUnsafeBytes { SecretBytes(copying: $0) })
        let alice = try UserName("alice")
        let bob = try UserName("bob")
        let a = try PINKeys.master(pin: pin, user: alice, salt: salt, pepper: pepperA, parameters: parameters)
        let b = try PINKeys.master(pin: pin, user: alice, salt: salt, pepper: pepperB, parameters: parameters)
        let c = try PINKeys.master(pin: pin, user: bob, salt: salt, pepper: pepperA, parameters: parameters)
        let again = try PINKeys.master(pin: pin, user: alice, salt: salt, pepper: pepperA, parameters: parameters)
        XCTAssertTrue(a.constantTimeEquals(again))
        XCTAssertFalse(a.constantTimeEquals(b))
        XCTAssertFalse(a.constantTimeEquals(c))
    }

    func testParametersAreBounded() {
        XCTAssertThrowsError(try KDFParameters(memoryKiB: 100 * 1_048_576, iterations: 3, lanes: 1).validate())
        XCTAssertThrowsError(try KDFParameters(memoryKiB: 65_536, iterations: 0, lanes: 1).validate())
        XCTAssertThrowsError(try KDFParameters(memoryKiB: 65_536, iterations: 3, lanes: 64).validate())
        XCTAssertThrowsError(try KDFParameters(memoryKiB: 8, iterations: 1, lanes: 2).validate(), "8 KiB per lane")
        XCTAssertNoThrow(try KDFParameters.defaults.validate())
    }
}
