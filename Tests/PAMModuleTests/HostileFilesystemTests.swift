// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// A hostile filesystem under the module (beyond StateSecurityTests): records with the
/// wrong owner or writable by others, oversized and truncated records, special files and
/// symlinks as the lockout record and the pepper, links planted at the writer's
/// temporary name, and the state directory or a record swapped while the PIN is asked for.
///
/// Design (ProtectedDirectory, StateStore): the state directory is opened once per
/// transaction by walking its path with O_NOFOLLOW, and every later access is `openat`
/// relative to that checked descriptor. So a directory swapped after the first look is
/// not followed: the login completes against the original directory (wherever it was
/// renamed to). Each record is re-opened with O_NOFOLLOW and re-checked on every read, so
/// a record swapped for a symlink is refused. Every case: a clean PAM code, a syslog line,
/// nothing followed, nothing written outside the state directory, no failure counted
/// unless a PIN was really checked.
final class HostileFilesystemTests: XCTestCase {
    /// A PIN the impostor state knows and the real one does not.
    let impostorPIN = "6028"

    private func harness() throws -> HostileHarness {
        try HostileHarness(suite: "HostileFilesystemTests")
    }

    /// A copy of the state (taken now) in which the user's PIN is `impostorPIN`: what an
    /// attacker would like the module to use instead. Returns its path.
    private func impostor(_ harness: HostileHarness) throws -> String {
        let path = harness.sandbox.root + "/impostor"
        let copied = try runProgram("/bin/cp", ["-a", harness.sandbox.state, path])
        XCTAssertEqual(copied.status, 0, copied.errorOutput)
        try harness.sandbox.setPIN(harness.user, pin: impostorPIN, directory: path)
        return path
    }

    /// Makes sure the user has a lockout record (a plain one with no failures).
    private func ensureLockout(_ harness: HostileHarness) throws {
        if !FileManager.default.fileExists(atPath: harness.lockout) {
            try harness.sandbox.write(harness.lockout, "SECUREROOM-LOCKOUT/1\nfailures: 0\n", mode: 0o600)
        }
    }

    func testRecordsOwnedBySomeoneElseAreRefusedBeforeAsking() throws {
        let harness = try harness()
        try ensureLockout(harness)
        for (name, path) in [("credential", harness.credential), ("lockout", harness.lockout)] {
            XCTAssertEqual(chown(path, 1, 1), 0)
            let run = try harness.run(responses: [harness.pin])
            harness.expect(
                run, code: PAMCode.authInfoUnavailable, log: "not owned by root", case: "\(name) owned by uid 1")
            XCTAssertEqual(run.transcript.prompts, [], name)
            XCTAssertEqual(chown(path, 0, 0), 0)
        }
        XCTAssertEqual(try harness.failures(), 0)
    }

    func testRecordsWritableOrReadableByOthersAreRefusedBeforeAsking() throws {
        let harness = try harness()
        try ensureLockout(harness)
        let cases: [(String, String, mode_t)] = [
            ("credential", harness.credential, 0o620), ("credential", harness.credential, 0o602),
            ("credential", harness.credential, 0o660), ("lockout", harness.lockout, 0o620),
            ("lockout", harness.lockout, 0o606), ("lockout", harness.lockout, 0o640),
        ]
        for (name, path, mode) in cases {
            XCTAssertEqual(chmod(path, mode), 0)
            let run = try harness.run(responses: [harness.pin])
            harness.expect(
                run, code: PAMCode.authInfoUnavailable, log: "accessible by group or others",
                case: "\(name) mode 0\(String(mode, radix: 8))")
            XCTAssertEqual(run.transcript.prompts, [], "\(name) \(mode)")
            XCTAssertEqual(chmod(path, 0o600), 0)
        }
        XCTAssertEqual(try harness.failures(), 0)
    }

    /// 10 MiB records are refused from their size (fstat) without being read: the driver
    /// reads (/proc/self/io rchar, all files and pipes together) far less than one of them.
    func testOversizedRecordsAreRefusedUnread() throws {
        let harness = try harness()
        try ensureLockout(harness)
        let size = 10 << 20
        for (name, path, limit) in [
            ("credential", harness.credential, 4096), ("lockout", harness.lockout, 16384),
            ("pepper", harness.pepper, 4096),
        ] {
            let original = try Data(contentsOf: URL(fileURLWithPath: path))
            var huge = original
            huge.append(Data(repeating: UInt8(ascii: "x"), count: size - original.count))
            try huge.write(to: URL(fileURLWithPath: path))
            XCTAssertEqual(chmod(path, 0o600), 0)
            let run = try harness.run(options: ["--report-io"], responses: [harness.pin])
            let read = run.transcript.process.lines.compactMap {
                $0.hasPrefix("io: rchar ") ? Int($0.dropFirst(10)) : nil
            }.first
            harness.expect(
                run, code: PAMCode.authInfoUnavailable, log: "larger than \(limit) bytes",
                case: "\(name) of 10 MiB (driver read \(read.map { "\($0 / 1024) KiB" } ?? "?") in all)")
            XCTAssertNotNil(read, "no io line: \(run.transcript.process.output)")
            XCTAssertLessThan(read ?? .max, 1 << 20, "\(name): the driver read at least 1 MiB")
            try original.write(to: URL(fileURLWithPath: path))
            XCTAssertEqual(chmod(path, 0o600), 0)
        }
        XCTAssertEqual(try harness.failures(), 0)
        harness.expect(
            try harness.run(responses: [harness.pin]), code: PAMCode.success, log: "PIN accepted",
            case: "restored records accepted")
    }

    /// Every proper prefix of a valid credential record (0 bytes up to one byte short) is
    /// refused before the PIN is asked for; none is accepted. With SECUREROOM_HOSTILE_LONG=1
    /// every prefix of the pepper too (asked for, then refused).
    func testEveryTruncationOfTheCredentialIsRefused() throws {
        let harness = try harness()
        var files: [(name: String, path: String, prompted: Bool)] = [("credential", harness.credential, false)]
        if ProcessInfo.processInfo.environment["SECUREROOM_HOSTILE_LONG"] == "1" {
            files.append(("pepper", harness.pepper, true))
        }
        for file in files {
            let original = try Data(contentsOf: URL(fileURLWithPath: file.path))
            var reasons: [String: Int] = [:]
            var violations = 0
            var firstLine = ""
            for length in 0..<original.count {
                try original.prefix(length).write(to: URL(fileURLWithPath: file.path))
                XCTAssertEqual(chmod(file.path, 0o600), 0)
                let run = try harness.run(responses: [harness.pin])
                let line = run.moduleLog.first { $0.contains("corrupt record") }
                let clean =
                    run.transcript.code == PAMCode.authInfoUnavailable && line != nil
                    && run.transcript.prompts.count == (file.prompted ? 1 : 0)
                if !clean {
                    violations += 1
                    XCTFail(
                        "\(file.name) prefix of \(length) bytes: \(run.transcript.process.output) log \(run.moduleLog)")
                }
                if let line {
                    if firstLine.isEmpty { firstLine = line }
                    // "... corrupt record PATH: REASON (user ...)": the reason alone.
                    let after = line.range(of: file.path + ": ").map { line[$0.upperBound...] } ?? Substring(line)
                    let reason = String(after.prefix { $0 != "(" }).trimmingCharacters(in: .whitespaces)
                    reasons[reason, default: 0] += 1
                }
            }
            let summary = reasons.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: "; ")
            harness.record(
                case: "every prefix of the \(file.name) (\(original.count) lengths, \(violations) not refused)",
                result: violations == 0 ? "9 for all" : "\(violations) not refused",
                syslog: "\(ReliabilityReport.trimmed(firstLine)) — reasons: \(summary)")
            try original.write(to: URL(fileURLWithPath: file.path))
            XCTAssertEqual(chmod(file.path, 0o600), 0)
        }
        XCTAssertEqual(try harness.failures(), 0)
        harness.expect(
            try harness.run(responses: [harness.pin]), code: PAMCode.success, log: "PIN accepted",
            case: "whole credential accepted after the truncations")
    }

    /// A FIFO (must not hang) or a symlink (must not be followed) as the lockout record
    /// (read before asking) and as the pepper (read after asking, before counting).
    func testFIFOAndSymlinkAsLockoutRecordOrPepperAreRefused() throws {
        let harness = try harness()
        try ensureLockout(harness)
        let decoy = harness.sandbox.root + "/decoy"
        try FileManager.default.createDirectory(
            atPath: decoy, withIntermediateDirectories: false,
            attributes: [.posixPermissions: 0o700])
        for (name, path, prompted) in [("lockout record", harness.lockout, false), ("pepper", harness.pepper, true)] {
            let saved = decoy + "/" + (path as NSString).lastPathComponent
            try FileManager.default.copyItem(atPath: path, toPath: saved)
            let before = HostileHarness.snapshot(decoy)

            try FileManager.default.removeItem(atPath: path)
            XCTAssertEqual(mkfifo(path, 0o600), 0)
            let fifo = try harness.run(responses: [harness.pin])
            harness.expect(
                fifo, code: PAMCode.authInfoUnavailable, log: "not a regular file", case: "\(name) is a FIFO")
            XCTAssertEqual(fifo.transcript.prompts.count, prompted ? 1 : 0, name)

            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: saved)
            let link = try harness.run(responses: [harness.pin])
            harness.expect(link, code: PAMCode.authInfoUnavailable, log: "is a symlink", case: "\(name) is a symlink")
            XCTAssertEqual(link.transcript.prompts.count, prompted ? 1 : 0, name)

            XCTAssertEqual(HostileHarness.snapshot(decoy), before, "\(name): the link target was changed")
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.copyItem(atPath: saved, toPath: path)
        }
        XCTAssertEqual(try harness.failures(), 0)
    }

    /// The writer's temporary names (`.NAME.lockout.tmp`, `.NAME.credential.tmp`) planted
    /// as a symlink or a hard link to a file outside: the writer removes the name and
    /// creates its own file (O_EXCL|O_NOFOLLOW), so the outside file is never written. A
    /// directory there (which it cannot remove) makes the check fail before anything is
    /// counted.
    func testLinksPlantedAtTheWritersTemporaryNameAreNotFollowed() throws {
        let harness = try harness()
        let users = harness.sandbox.state + "/users"
        let decoy = harness.sandbox.root + "/decoy"
        try FileManager.default.createDirectory(
            atPath: decoy, withIntermediateDirectories: false,
            attributes: [.posixPermissions: 0o700])
        try harness.sandbox.write(decoy + "/target", "must stay as it is\n", mode: 0o600)
        let lockoutTemporary = users + "/.\(harness.user).lockout.tmp"
        let credentialTemporary = users + "/.\(harness.user).credential.tmp"
        let before = HostileHarness.snapshot(decoy)

        try FileManager.default.createSymbolicLink(atPath: lockoutTemporary, withDestinationPath: decoy + "/target")
        let wrong = try harness.run(responses: ["1357"])
        harness.expect(
            wrong, code: PAMCode.authError, log: "wrong PIN", case: "symlink at .NAME.lockout.tmp, wrong PIN (counted)")
        XCTAssertEqual(try harness.failures(), 1)

        XCTAssertEqual(link(decoy + "/target", lockoutTemporary), 0)
        let right = try harness.run(responses: [harness.pin])
        harness.expect(
            right, code: PAMCode.success, log: "PIN accepted", case: "hard link at .NAME.lockout.tmp, right PIN")
        XCTAssertEqual(try harness.failures(), 0)

        try FileManager.default.createSymbolicLink(atPath: credentialTemporary, withDestinationPath: decoy + "/target")
        let change = try harness.run(responses: [harness.pin, impostorPIN, impostorPIN], operations: ["chauthtok"])
        harness.expect(
            change, code: PAMCode.success, log: "PIN changed", case: "symlink at .NAME.credential.tmp, PIN change")
        harness.expect(
            try harness.run(responses: [impostorPIN]), code: PAMCode.success, log: "PIN accepted",
            case: "the changed PIN works")

        XCTAssertEqual(HostileHarness.snapshot(decoy), before, "a file outside the state directory was written")
        for temporary in [lockoutTemporary, credentialTemporary] {
            var info = stat()
            XCTAssertNotEqual(lstat(temporary, &info), 0, "\(temporary) left behind")
        }

        try FileManager.default.createDirectory(atPath: lockoutTemporary, withIntermediateDirectories: false)
        let blocked = try harness.run(responses: ["1357"])
        harness.expect(
            blocked, code: PAMCode.authInfoUnavailable, log: "Is a directory",
            case: "directory at .NAME.lockout.tmp, wrong PIN")
        XCTAssertEqual(try harness.failures(), 0, "the count could not be written, so argon2 never ran")
        try FileManager.default.removeItem(atPath: lockoutTemporary)
    }

    /// At the PIN prompt the state directory is renamed away and a symlink to an impostor
    /// state (or the impostor directory itself) put in its place. The module keeps using
    /// the directory it opened: the impostor's PIN fails, the real PIN works, the count
    /// lands in the original directory, and the impostor is untouched.
    func testStateDirectorySwappedDuringTheLoginIsNotFollowed() throws {
        let harness = try harness()
        let state = harness.sandbox.state
        let moved = harness.sandbox.root + "/state-moved"
        let impostor = try impostor(harness)
        let before = HostileHarness.snapshot(impostor)

        let toSymlink = try harness.run(
            options: ["--at-prompt", "mv '\(state)' '\(moved)' && ln -s '\(impostor)' '\(state)'"],
            responses: [impostorPIN])
        XCTAssertTrue(toSymlink.transcript.process.lines.contains("at-prompt: 0"), toSymlink.transcript.process.output)
        harness.expect(
            toSymlink, code: PAMCode.authError, log: "wrong PIN",
            case: "state dir → symlink to an impostor at the prompt, impostor's PIN")
        XCTAssertEqual(try harness.failures(in: moved), 1, "counted in the original directory")
        XCTAssertEqual(HostileHarness.snapshot(impostor), before, "the impostor state was written")
        try FileManager.default.removeItem(atPath: state)
        try FileManager.default.moveItem(atPath: moved, toPath: state)

        let toDirectory = try harness.run(
            options: ["--at-prompt", "mv '\(state)' '\(moved)' && mv '\(impostor)' '\(state)'"],
            responses: [harness.pin])
        harness.expect(
            toDirectory, code: PAMCode.success, log: "PIN accepted",
            case: "state dir → impostor directory at the prompt, real PIN")
        XCTAssertEqual(try harness.failures(in: moved), 0, "the success cleared the original's count")
        XCTAssertEqual(HostileHarness.snapshot(state), before, "the impostor state (now at the state path) was written")
        try FileManager.default.moveItem(atPath: state, toPath: impostor)
        try FileManager.default.moveItem(atPath: moved, toPath: state)

        let users = state + "/users"
        let usersToSymlink = try harness.run(
            options: ["--at-prompt", "mv '\(users)' '\(users)-moved' && ln -s '\(impostor)/users' '\(users)'"],
            responses: [impostorPIN])
        harness.expect(
            usersToSymlink, code: PAMCode.authError, log: "wrong PIN",
            case: "users/ → symlink to the impostor's at the prompt, impostor's PIN")
        XCTAssertEqual(HostileHarness.snapshot(impostor), before, "the impostor state was written")
        try FileManager.default.removeItem(atPath: users)
        try FileManager.default.moveItem(atPath: users + "-moved", toPath: users)
        XCTAssertEqual(try harness.failures(), 1, "counted in the original users/")
    }

    /// At the PIN prompt the credential (or the lockout record) is replaced by a symlink
    /// to the impostor's: the check re-reads it under the lock and refuses it, before
    /// anything is counted; the impostor's PIN never works.
    func testRecordSwappedForASymlinkDuringTheLoginIsRefused() throws {
        let harness = try harness()
        try ensureLockout(harness)
        let impostor = try impostor(harness)
        let before = HostileHarness.snapshot(impostor)
        for (name, path) in [("credential", harness.credential), ("lockout", harness.lockout)] {
            let target = impostor + "/users/" + (path as NSString).lastPathComponent
            let saved = harness.sandbox.root + "/saved-" + name
            let run = try harness.run(
                options: ["--at-prompt", "mv '\(path)' '\(saved)' && ln -s '\(target)' '\(path)'"],
                responses: [impostorPIN])
            XCTAssertTrue(run.transcript.process.lines.contains("at-prompt: 0"), run.transcript.process.output)
            harness.expect(
                run, code: PAMCode.authInfoUnavailable, log: "is a symlink",
                case: "\(name) → symlink to the impostor's at the prompt")
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.moveItem(atPath: saved, toPath: path)
            XCTAssertEqual(try harness.failures(), 0, name)
        }
        XCTAssertEqual(HostileHarness.snapshot(impostor), before, "the impostor state was written")
    }
}
