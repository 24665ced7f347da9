// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import XCTest

@testable import SecureRoomCore

/// Inputs the fuzzers in Fuzz/ found to break a parser, kept as regression tests. Each
/// input is also a seed in Fuzz/Corpus/<fuzzer>/regression-*.
final class FuzzRegressionTests: XCTestCase {
    private func loadFile(_ bytes: [UInt8]) throws -> Configuration {
        try Configuration.load(arguments: []) { path in
            path == Configuration.defaultConfigPath ? bytes : nil
        }
    }

    /// FuzzConfiguration: a config file with CRLF line endings was read as one line,
    /// because `"\r\n"` is a single Character: `dir` took the rest of the file as its
    /// value and every later option (here `nodelay`) was silently dropped.
    func testCRLFConfigFileKeepsEveryLine() throws {
        let configuration = try loadFile(Array("dir = /a\r\nnodelay\r\n".utf8))
        XCTAssertEqual(configuration.directory, "/a")
        XCTAssertTrue(configuration.noDelay)
        XCTAssertEqual(configuration.unknownKeys, [])
    }

    /// The same, with a flag that must not be lost (`even_deny_root`) and a number.
    func testCRLFConfigFileAppliesFlagsAndNumbers() throws {
        let configuration = try loadFile(Array("dir = /var/lib/sr\r\neven_deny_root\r\ndeny = 3\r\n".utf8))
        XCTAssertEqual(configuration.directory, "/var/lib/sr")
        XCTAssertTrue(configuration.evenDenyRoot)
        XCTAssertEqual(configuration.lockout.deny, 3)
        XCTAssertEqual(configuration.unknownKeys, [])
    }

    /// A line feed inside a value is impossible after the fix: every value is one line.
    func testNoConfigValueSpansLines() throws {
        let configuration = try loadFile(Array("blocklist = none\r\nhelper = /usr/sbin/x\r\n".utf8))
        XCTAssertEqual(configuration.blocklist, "none")
        XCTAssertEqual(configuration.helperPath, "/usr/sbin/x")
    }
}
