// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import SecureRoomCore

/// The journal's side of the log lines: the native protocol's encoding, and the shipped
/// message catalog (pam/secureroom.catalog) against `LogEvent` and the real journalctl.
final class LogEventTests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `NAME=value` lines; a value with a newline as NAME, 64-bit little-endian length,
    /// the bytes (systemd.io/JOURNAL_NATIVE_PROTOCOL).
    func testEntriesAreEncodedAsTheNativeProtocolSays() {
        XCTAssertEqual(
            SystemJournal.encode([("MESSAGE", "a b"), ("PRIORITY", "5")]), Array("MESSAGE=a b\nPRIORITY=5\n".utf8))
        XCTAssertEqual(
            SystemJournal.encode([("SECUREROOM_RHOST", "x\ny")]),
            Array("SECUREROOM_RHOST\n".utf8) + [3, 0, 0, 0, 0, 0, 0, 0] + Array("x\ny\n".utf8))
        var entry = JournalEntry(message: "m", priority: LOG_AUTHPRIV | LOG_NOTICE, event: .wrong)
        entry.add("USER", "alice")
        entry.add("TTY", nil)
        entry.add("RHOST", "")
        let fields = Dictionary(uniqueKeysWithValues: entry.fields.map { ($0.name, $0.value) })
        XCTAssertEqual(fields["PRIORITY"], "5", "the priority without the facility")
        XCTAssertEqual(fields["SYSLOG_FACILITY"], "10", "authpriv, as fail2ban's journalmatch expects")
        XCTAssertEqual(fields["MESSAGE_ID"], LogEvent.wrong.rawValue)
        XCTAssertEqual(fields["SECUREROOM_USER"], "alice")
        XCTAssertNil(fields["SECUREROOM_TTY"], "an unset item is no field")
        XCTAssertNil(fields["SECUREROOM_RHOST"], "an empty item is no field")
    }

    /// Every MESSAGE_ID the code logs has a catalog entry and every entry an ID the code
    /// logs; journalctl builds its database from the file and lists each with its subject.
    func testTheCatalogExplainsEveryEventAndJournalctlReadsIt() throws {
        let catalog = try String(contentsOf: root.appendingPathComponent("pam/secureroom.catalog"), encoding: .utf8)
        let ids = catalog.split(separator: "\n").filter { $0.hasPrefix("-- ") }.map { String($0.dropFirst(3)) }
        XCTAssertEqual(ids.sorted(), LogEvent.allCases.map(\.rawValue).sorted())
        XCTAssertEqual(Set(ids).count, ids.count, "each ID once")

        let work = FileManager.default.temporaryDirectory.appendingPathComponent("secureroom-catalog-\(getpid())")
        defer { try? FileManager.default.removeItem(at: work) }
        let directory = work.appendingPathComponent("usr/lib/systemd/catalog")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try catalog.write(to: directory.appendingPathComponent("secureroom.catalog"), atomically: true, encoding: .utf8)
        for arguments in [["--update-catalog"], ["--list-catalog"]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/journalctl")
            process.arguments = ["--root=" + work.path] + arguments
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let listed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, "journalctl \(arguments)")
            guard arguments == ["--list-catalog"] else { continue }
            for event in LogEvent.allCases {
                XCTAssertTrue(listed.contains("\(event.rawValue) SecureRoom: "), "\(event): \(listed)")
            }
        }
    }
}
