// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import XCTest

@testable import SecureRoomCore

final class RecordTests: XCTestCase {
    private func credential() throws -> CredentialRecord {
        CredentialRecord(
            user: try UserName("alice"), parameters: .defaults, salt: Array(0..<16),
            verifier: Array(repeating: 0xab, count: 32), digits: 4, created: 1_795_000_000)
    }

    func testCredentialRoundTripsAndMatchesTheDocumentedForm() throws {
        let record = try credential()
        let bytes = record.serialized()
        XCTAssertEqual(
            String(decoding: bytes, as: UTF8.self),
            """
            SECUREROOM-CREDENTIAL/1
            user: alice
            kdf: argon2id-19
            memory-kib: 65536
            iterations: 3
            lanes: 2
            salt: 000102030405060708090a0b0c0d0e0f
            verifier: abababababababababababababababababababababababababababababababab
            digits: 4
            created: 1795000000

            """)
        XCTAssertEqual(try CredentialRecord(parsing: bytes, path: "t"), record)
    }

    func testCorruptCredentialsAreRejectedWithAReason() throws {
        let good = String(decoding: try credential().serialized(), as: UTF8.self)
        let cases: [(String, String)] = [
            ("truncated", String(good.dropLast())),
            ("wrong header", good.replacingOccurrences(of: "CREDENTIAL/1", with: "CREDENTIAL/2")),
            ("unknown key", good + "extra: 1\n"),
            ("duplicate key", good + "digits: 4\n"),
            ("missing key", good.replacingOccurrences(of: "digits: 4\n", with: "")),
            ("100 GiB memory", good.replacingOccurrences(of: "65536", with: "104857600")),
            ("zero iterations", good.replacingOccurrences(of: "iterations: 3", with: "iterations: 0")),
            ("leading zero", good.replacingOccurrences(of: "lanes: 2", with: "lanes: 02")),
            ("short salt", good.replacingOccurrences(of: "0e0f", with: "0e")),
            ("uppercase hex", good.replacingOccurrences(of: "0a0b", with: "0A0B")),
            ("carriage return", good.replacingOccurrences(of: "\n", with: "\r\n")),
            ("bad user", good.replacingOccurrences(of: "user: alice", with: "user: ../x")),
            ("other kdf", good.replacingOccurrences(of: "argon2id-19", with: "argon2i-19")),
            ("blank line", good + "\n"),
            ("digits out of range", good.replacingOccurrences(of: "digits: 4", with: "digits: 40")),
        ]
        for (name, text) in cases {
            XCTAssertThrowsError(try CredentialRecord(parsing: Array(text.utf8), path: "t"), name) { error in
                guard case SecureRoomError.corruptRecord = error else { return XCTFail("\(name): \(error)") }
            }
        }
        XCTAssertThrowsError(try CredentialRecord(parsing: [0xff, 0x00], path: "t"))
    }

    func testLockoutRoundTrips() throws {
        var record = LockoutRecord()
        record.lastFailure = Instant(
            wallSeconds: 1_795_000_000, bootID: String(repeating: "a", count: 32),
            bootNanoseconds: 12_345)
        record.lastSuccess = 1_794_000_000
        record.seenGuesses = [Array(repeating: 1, count: 16), Array(repeating: 2, count: 16)]
        record.failedAt = [1_794_999_000, 1_794_999_500, 1_795_000_000]
        record.unforgiven = [1_790_000_000]
        record.pending = [
            .init(
                id: Array(repeating: 9, count: 8),
                counted: Instant(wallSeconds: 1_795_000_001, bootID: "", bootNanoseconds: 1))
        ]
        let parsed = try LockoutRecord(parsing: record.serialized(), path: "t")
        XCTAssertEqual(parsed, record)
        var unknownBoot = LockoutRecord()
        unknownBoot.lastFailure = Instant(wallSeconds: 5, bootID: "", bootNanoseconds: 7)
        unknownBoot.failedAt = [5]
        XCTAssertEqual(try LockoutRecord(parsing: unknownBoot.serialized(), path: "t"), unknownBoot)
    }

    /// Version 1 records are read without their tags (HMACs under the pepper, cheaper to
    /// search than the credential); the failures and times stay.
    func testVersion1LockoutRecordsLoseOnlyTheirTags() throws {
        let text = "SECUREROOM-LOCKOUT/1\nfailures: 2\nlast-failure: 5 - 7\nseen: 71c307765e0c6540016b02b4e96796d9\n"
        let record = try LockoutRecord(parsing: Array(text.utf8), path: "t")
        XCTAssertEqual(record.failures, 2)
        XCTAssertEqual(record.lastFailure, Instant(wallSeconds: 5, bootID: "", bootNanoseconds: 7))
        XCTAssertEqual(record.seenGuesses, [])
        XCTAssertEqual(record.failedAt, [5, 5], "each failure dated at the last one")
        XCTAssertTrue(String(decoding: record.serialized(), as: UTF8.self).hasPrefix("SECUREROOM-LOCKOUT/2\n"))
    }

    func testCorruptLockoutRecordsAreRejected() {
        let cases = [
            "SECUREROOM-LOCKOUT/2\nfailures: -1\n",
            "SECUREROOM-LOCKOUT/2\nfailures: 2\n",  // failures without a time
            "SECUREROOM-LOCKOUT/2\nfailures: 1\nlast-failure: 5 x 7\n",
            "SECUREROOM-LOCKOUT/2\nfailures: 0\nseen: 00\n",
            "SECUREROOM-LOCKOUT/2\nfailures: 0\npending: 0011223344556677\n",  // no time
            "SECUREROOM-LOCKOUT/2\nfailures: 0\npending: 00112233 5 - 7\n",  // short id
            "SECUREROOM-LOCKOUT/1\nfailures: 0\npending: 0011223344556677 5 - 7\n",  // not in version 1
            "SECUREROOM-LOCKOUT/3\nfailures: 0\n",
            "SECUREROOM-LOCKOUT/2\nfailures: 1\nlast-failure: 5 - 7\n",  // no failed-at
            "SECUREROOM-LOCKOUT/2\nfailures: 0\nunforgiven: x\n",
            "SECUREROOM-LOCKOUT/2\n",
        ]
        for text in cases {
            XCTAssertThrowsError(try LockoutRecord(parsing: Array(text.utf8), path: "t"), text)
        }
    }

    func testUserNamesThatCannotBePathsAreRefused() {
        for good in ["alice", "a", "user.name", "user-name", "_svc", "HOST$", "u1", String(repeating: "a", count: 32)] {
            XCTAssertNoThrow(try UserName(good), good)
        }
        for bad in [
            "", ".", "..", "../etc", "a/b", "-rf", ".hidden", "a b", "a\0b", "$", "a$b", "é",
            String(repeating: "a", count: 33), String(repeating: "x", count: 300), "a\n",
        ] {
            XCTAssertThrowsError(try UserName(bad), bad)
        }
        XCTAssertEqual(UserName.quoted("a\nb\"c"), "\"a\\x0ab\\x22c\"")
    }
}
