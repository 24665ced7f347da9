// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import XCTest

@testable import SecureRoomCore

final class PolicyTests: XCTestCase {
    private func pin(_ text: String) throws -> SecretBytes {
        try Array(text.utf8).withUnsafeBytes { try PINFormat.fourDigits.pin(from: $0) }
    }

    func testFormatAcceptsExactlyTheConfiguredASCIIDigits() throws {
        XCTAssertEqual(try pin("0123").count, 4)
        for bad in ["123", "12345", "12a4", "١٢٣٤", "１２３４", " 123", "-123", "12.4", ""] {
            XCTAssertThrowsError(try pin(bad), bad)
        }
        XCTAssertThrowsError(
            try Array("12\u{0}4".utf8).withUnsafeBytes { try PINFormat.fourDigits.pin(from: $0) },
            "embedded NUL ends the input early")
        XCTAssertThrowsError(try PINFormat(digits: 3))
        XCTAssertThrowsError(try PINFormat(digits: 13))
        XCTAssertEqual(try PINFormat(digits: 12).digits, 12)
    }

    /// Apple's 274 and the data-driven 2,740 overlap in 258: 2,756 PINs, plus the 100
    /// constant steps (63 of them not already listed): 2,793 refused, 27.9% of the space.
    func testBuiltinBlocklistIsApplesListAndTheDataDrivenOne() throws {
        XCTAssertEqual(Blocklist.builtin.count, 2756)
        let policy = PINPolicy(blocklist: .builtin)
        for blocked in ["1234", "0000", "2580", "1212", "6969", "7391", "1342", "2007"] {
            XCTAssertTrue(policy.rejections(of: try pin(blocked)).contains(.blocklisted), blocked)
        }
        let refused = (0..<10_000).filter { !policy.rejections(of: try! pin(String(format: "%04d", $0))).isEmpty }.count
        XCTAssertEqual(refused, 2793)
        XCTAssertEqual(policy.rejections(of: try pin("6193")), [])
    }

    func testConstantStepsAreRefusedEvenWithoutABlocklist() throws {
        let policy = PINPolicy(blocklist: .none)
        let expected: [String: Int] = ["1111": 0, "1234": 1, "1357": 2, "9876": 9, "7890": 1, "0987": 9, "8642": 8]
        for (text, step) in expected {
            XCTAssertEqual(policy.rejections(of: try pin(text)), [.constantStep(step)], text)
        }
        XCTAssertEqual(policy.rejections(of: try pin("1235")), [])
        XCTAssertEqual(PINPolicy.Rejection.constantStep(9).description, "a sequence (constant step of -1)")
    }

    func testBlocklistFilesParseAndRejectGarbage() throws {
        let list = try Blocklist(parsing: Array("# comment\n1234\n\n 5678 \n".utf8), source: "t")
        XCTAssertEqual(list.count, 2)
        XCTAssertThrowsError(try Blocklist(parsing: Array("12a4\n".utf8), source: "t"))
        XCTAssertThrowsError(try Blocklist.load("relative/path"))
        let shipped = try Blocklist.load(
            #filePath.components(separatedBy: "/Tests/")[0]
                + "/pam/blocklist-datadriven-4digit-2740.txt")
        XCTAssertEqual(shipped.count, 2740)
    }
}
