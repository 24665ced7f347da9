// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// The module refuses state it cannot trust, with PAM_AUTHINFO_UNAVAIL, and never
/// follows a symlink or hangs on a special file.
final class StateSecurityTests: XCTestCase {
    let user = "daemon"
    let pin = "7391"

    private func assertRefused(
        _ sandbox: Sandbox, _ description: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let result = try sandbox.pam(user: user, responses: [pin])
        XCTAssertEqual(result.code, PAMCode.authInfoUnavailable, description, file: file, line: line)
        XCTAssertEqual(result.prompts, [], "\(description): refused before asking", file: file, line: line)
    }

    func testMissingStateDirectory() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin)
        try FileManager.default.removeItem(atPath: sandbox.state)
        try assertRefused(sandbox, "missing directory")
    }

    func testWorldWritableStateDirectory() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin)
        chmod(sandbox.state, 0o777)
        try assertRefused(sandbox, "mode 0777")
        chmod(sandbox.state, 0o720)
        try assertRefused(sandbox, "group-writable")
    }

    func testStateDirectoryOwnedBySomeoneElse() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin)
        chown(sandbox.state, 65534, 65534)
        try assertRefused(sandbox, "owned by nobody")
    }

    func testInsecureAncestorDirectory() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin)
        chmod(sandbox.root, 0o777)
        try assertRefused(sandbox, "parent writable by others")
    }

    func testStateDirectoryIsASymlink() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin)
        try FileManager.default.moveItem(atPath: sandbox.state, toPath: sandbox.root + "/real")
        try FileManager.default.createSymbolicLink(atPath: sandbox.state, withDestinationPath: sandbox.root + "/real")
        try assertRefused(sandbox, "symlinked directory")
    }

    func testRecordIsASymlinkHardLinkFIFOOrOpenToOthers() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin)
        let record = sandbox.state + "/users/\(user).credential"
        let saved = sandbox.root + "/saved"
        try FileManager.default.copyItem(atPath: record, toPath: saved)

        try FileManager.default.removeItem(atPath: record)
        try FileManager.default.createSymbolicLink(atPath: record, withDestinationPath: saved)
        try assertRefused(sandbox, "symlinked record")

        try FileManager.default.removeItem(atPath: record)
        XCTAssertEqual(link(saved, record), 0)
        try assertRefused(sandbox, "hard-linked record")

        try FileManager.default.removeItem(atPath: record)
        XCTAssertEqual(mkfifo(record, 0o600), 0)
        try assertRefused(sandbox, "FIFO record (must not hang)")

        try FileManager.default.removeItem(atPath: record)
        try FileManager.default.copyItem(atPath: saved, toPath: record)
        chmod(record, 0o644)
        try assertRefused(sandbox, "record readable by others")
        chmod(record, 0o600)
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success, "restored")
    }

    func testCorruptRecordsAreRefused() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin)
        let record = sandbox.state + "/users/\(user).credential"
        let original = try String(contentsOfFile: record, encoding: .utf8)
        let variants: [(String, String)] = [
            ("garbage", "not a record\n"),
            ("truncated", String(original.dropLast(10))),
            ("empty", ""),
            ("huge memory cost", original.replacingOccurrences(of: "memory-kib: 256", with: "memory-kib: 104857600")),
            ("bad hex", original.replacingOccurrences(of: "salt: ", with: "salt: zz")),
            ("other user's record", original.replacingOccurrences(of: "user: daemon", with: "user: bin")),
            ("oversized", original + String(repeating: "x", count: 10_000)),
        ]
        for (name, text) in variants {
            try sandbox.write(record, text, mode: 0o600)
            try assertRefused(sandbox, name)
        }
        let tally = sandbox.state + "/users/\(user).lockout"
        try sandbox.write(record, original, mode: 0o600)
        try sandbox.write(tally, "SECUREROOM-LOCKOUT/1\nfailures: many\n", mode: 0o600)
        try assertRefused(sandbox, "corrupt lockout record")
    }

    func testMissingPepperIsRefused() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin)
        try FileManager.default.removeItem(atPath: sandbox.state + "/pepper")
        let result = try sandbox.pam(user: user, responses: [pin])
        XCTAssertEqual(result.code, PAMCode.authInfoUnavailable)
    }

    func testWritesLeaveOnlyPrivateFilesAndNoTemporaries() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin)
        _ = try sandbox.pam(user: user, responses: ["1111"])
        _ = try sandbox.pam(user: user, responses: [pin])
        let users = sandbox.state + "/users"
        let names = try FileManager.default.contentsOfDirectory(atPath: users).sorted()
        XCTAssertEqual(names, ["daemon.credential", "daemon.lock", "daemon.lockout"])
        for name in names {
            let attributes = try FileManager.default.attributesOfItem(atPath: users + "/" + name)
            XCTAssertEqual(attributes[.posixPermissions] as? Int, 0o600, name)
            XCTAssertEqual(attributes[.ownerAccountID] as? Int, 0, name)
        }
    }
}
