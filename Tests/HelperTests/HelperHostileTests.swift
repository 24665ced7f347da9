// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// secureroom-helper run directly by a user who means harm: a hostile environment,
/// odd descriptors, oversized input, other accounts. Each gets a clean refusal (or,
/// where harmless, normal service) and never a crash, a free guess or root's powers.
/// Exit statuses: 0 success, 1 failure, 2 wrong PIN, 3 locked, 4 no PIN, 5 refused,
/// 6 unacceptable PIN (HelperProtocol.ExitStatus).
final class HelperHostileTests: XCTestCase {
    let user = "daemon", uid: UInt32 = 1
    let pin = "7391"

    private func stage() throws -> UnprivilegedStage {
        try UnprivilegedStage(sandbox: try Sandbox.enrolled(user, pin: pin))
    }

    private func failures(_ stage: UnprivilegedStage, _ name: String = "daemon") throws -> Int? {
        try stage.sandbox.status(name)["failures"] as? Int
    }

    func testOwnPINOverAPipe() throws {
        let stage = try stage()
        let right = try stage.helper(as: uid, ["verify", user], input: pin + "\n")
        XCTAssertEqual(right.status, 0, right.errorOutput)
        XCTAssertEqual(right.lines, ["ready", "success"])
        let wrong = try stage.helper(as: uid, ["verify", user], input: "1357\n")
        XCTAssertEqual(wrong.status, 2)
        XCTAssertEqual(wrong.lines, ["ready", "incorrect open 1 8 4 60"])
        XCTAssertEqual(try failures(stage), 1)
    }

    /// Regression (third red team, F9): a caller that takes the `ready` and then says
    /// nothing, holding its end open, gets `refused` after `HelperProtocol.pinAnswerSeconds`
    /// (60 s): the setuid helper exits and logs it, and nothing is counted.
    func testACallerThatGoesQuietAfterReadyIsDroppedWithinAMinute() throws {
        let stage = try stage()
        // Killed at 90 s if it waits on (status 137): the test never hangs.
        let quiet = try stage.run(
            as: uid, "/usr/bin/timeout", ["-s", "KILL", "90", stage.helper, "verify", user],
            descriptors: .silentInput)
        XCTAssertEqual(quiet.status, 5, quiet.output + quiet.errorOutput)
        XCTAssertEqual(quiet.lines, ["ready", "refused no PIN within 60 s"])
        XCTAssertTrue(
            stage.logLines().contains { $0.contains("refused uid 1: no PIN within 60 s of 'ready' (nothing counted)") },
            "\(stage.logLines())")
        XCTAssertEqual(try failures(stage), 0)
    }

    /// A caller's resource limits travel through exec into the setuid helper: a 1-byte
    /// file size limit (SIGXFSZ mid-write) or room for hardly any descriptors must not
    /// give a free guess, tear a record or crash it.
    func testCallersResourceLimitsGiveNoFreeGuess() throws {
        let stage = try stage()
        // Root raises the limit again when it may (CAP_SYS_RESOURCE); where it may not (a
        // container), the record write fails with EFBIG: an error, nothing checked.
        let tiny = try stage.run(
            as: uid, "/usr/bin/prlimit", ["--fsize=1", stage.helper, "verify", user], input: "1357\n")
        if tiny.status == 2 {
            XCTAssertEqual(try failures(stage), 1, "the wrong PIN was counted")
        } else {
            XCTAssertEqual(tiny.status, 1, "an error, not death by SIGXFSZ")
            XCTAssertEqual(tiny.lines, ["ready", "error"])
            XCTAssertTrue(
                stage.logLines().contains { $0.contains(".daemon.lockout.tmp: File too large") }, "\(stage.logLines())")
            XCTAssertEqual(try failures(stage), 0, "nothing was checked")
        }
        XCTAssertEqual(
            try stage.helper(as: uid, ["verify", user], input: pin + "\n").lines, ["ready", "success"], "records intact"
        )
        XCTAssertEqual(try failures(stage), 0)

        // Descriptors 0-3 and nothing more: the helper cannot open its state; it answers
        // "error" and logs why.
        let starved = try stage.run(
            as: uid, "/usr/bin/prlimit", ["--nofile=4", stage.helper, "verify", user], input: "1357\n")
        XCTAssertEqual(starved.status, 1, starved.output + starved.errorOutput)
        XCTAssertEqual(starved.lines, ["error"])
        XCTAssertTrue(
            stage.logLines().contains { $0.contains("Too many open files") },
            "the reason is logged: \(stage.logLines())")
        XCTAssertEqual(try failures(stage), 0, "no guess was checked, none counted")
        XCTAssertEqual(try stage.helper(as: uid, ["verify", user], input: pin + "\n").status, 0, "records intact")
    }

    func testRecordsStayRootOwnedAndPrivate() throws {
        let stage = try stage()
        XCTAssertEqual(try stage.helper(as: uid, ["verify", user], input: "1357\n").status, 2)
        let lockout = try FileManager.default.attributesOfItem(atPath: stage.sandbox.state + "/users/daemon.lockout")
        XCTAssertEqual(lockout[.ownerAccountID] as? Int, 0)
        XCTAssertEqual(lockout[.groupOwnerAccountID] as? Int, 0, "not the caller's group")
        XCTAssertEqual(lockout[.posixPermissions] as? Int, 0o600)
    }

    func testAnotherAccountIsRefusedLoggedAndUntouched() throws {
        let stage = try stage()
        try stage.sandbox.setPIN("bin", pin: "5826")
        for request in ["verify", "change"] {
            let result = try stage.helper(as: uid, [request, "bin"], input: "5826\n5826\n")
            XCTAssertEqual(result.status, 5, request)
            XCTAssertEqual(result.lines, ["refused only your own PIN can be checked or changed"])
            XCTAssertTrue(
                stage.logLines().contains { $0.contains("refused uid 1: asked to \(request) the PIN of \"bin\"") },
                "\(stage.logLines())")
        }
        XCTAssertEqual(try failures(stage, "bin"), 0)
        XCTAssertEqual(
            try stage.sandbox.pam(user: "bin", responses: ["5826"]).code, PAMCode.success, "bin's PIN unchanged")
    }

    func testRootAndMalformedRequestsAreRefused() throws {
        let stage = try stage()
        let cases: [(UInt32, [String])] = [
            (0, ["verify", "root"]), (uid, []), (uid, ["verify"]), (uid, ["status", user]),
            (uid, ["verify", user, "extra"]), (uid, ["verify", "../daemon"]),
            (uid, ["verify", String(repeating: "d", count: 300)]),
        ]
        for (caller, arguments) in cases {
            let result = try stage.helper(as: caller, arguments, input: pin + "\n")
            XCTAssertEqual(result.status, 5, "\(caller) \(arguments): \(result.output)")
            XCTAssertTrue(result.output.hasPrefix("refused "), "\(arguments): \(result.output)")
        }
        XCTAssertEqual(try failures(stage), 0)
    }

    /// A preloaded library and a backtracer chosen by the caller must never run as root;
    /// the Swift runtime must not even see SWIFT_* variables (it honours some under
    /// AT_SECURE, e.g. SWIFT_DEBUG_HELP prints its help; startup.c empties the
    /// environment before the runtime starts). Odd PATH, HOME and locale change nothing.
    func testHostileEnvironmentIsIgnored() throws {
        let stage = try stage()
        let marker = stage.scratch + "/preloaded"
        let library = stage.scratch + "/marker.so"
        let source = stage.scratch + "/marker.c"
        try #"""
        #include <fcntl.h>
        #include <unistd.h>
        __attribute__((constructor)) static void mark(void) { close(open("\#(marker)", O_WRONLY | O_CREAT, 0666)); }
        """#.write(toFile: source, atomically: true, encoding: .utf8)
        XCTAssertEqual(try runProgram("/usr/bin/cc", ["-shared", "-fPIC", "-o", library, source]).status, 0)
        let evil = stage.scratch + "/backtracer"
        try "#!/bin/sh\ntouch \(stage.scratch)/backtracer-ran\n".write(toFile: evil, atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(evil, 0o755), 0)

        // The library does work when the loader honours it (a program that is not setuid).
        XCTAssertEqual(try stage.run(as: uid, "/bin/true", [], environment: ["LD_PRELOAD": library]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: marker), "control: the marker library works")
        try FileManager.default.removeItem(atPath: marker)

        let hostile = [
            "LD_PRELOAD": library, "LD_LIBRARY_PATH": stage.scratch, "LD_DEBUG": "all",
            "SWIFT_BACKTRACE": "enable=yes,interactive=no,swift-backtrace=\(evil)", "SWIFT_DEBUG_HELP": "YES",
            "SWIFT_DETERMINISTIC_HASHING": "1", "SWIFT_ROOT": stage.scratch,
            "PATH": stage.scratch, "HOME": "/nonexistent", "LANG": "xx_XX.UTF-8", "LC_ALL": "tr_TR.UTF-8",
            "LOCPATH": stage.scratch, "GCONV_PATH": stage.scratch, "MALLOC_CHECK_": "3", "TMPDIR": stage.scratch,
        ]
        let result = try stage.helper(as: uid, ["verify", user], input: pin + "\n", environment: hostile)
        XCTAssertEqual(result.status, 0, result.output + result.errorOutput)
        XCTAssertEqual(result.lines, ["ready", "success"])
        XCTAssertEqual(result.errorOutput, "", "the runtime printed something: it saw the environment")
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker), "LD_PRELOAD ran in the setuid helper")
        XCTAssertFalse(FileManager.default.fileExists(atPath: stage.scratch + "/backtracer-ran"))
    }

    func testClosedDescriptorsAreRefused() throws {
        let stage = try stage()
        let closedInput = try stage.helper(as: uid, ["verify", user], descriptors: .closedInput)
        XCTAssertEqual(closedInput.status, 5)
        XCTAssertEqual(closedInput.lines, ["refused standard input is not a pipe or socket"])
        let closedOutput = try stage.helper(as: uid, ["verify", user], input: pin + "\n", descriptors: .closedOutput)
        XCTAssertEqual(closedOutput.status, 5)
        XCTAssertTrue(
            stage.logLines().contains { $0.contains("refused uid 1: standard output is not a pipe or socket") },
            "\(stage.logLines())")
        XCTAssertEqual(try failures(stage), 0)
    }

    func testFileOnStandardInputIsRefused() throws {
        let stage = try stage()
        let result = try stage.helper(as: uid, ["verify", user], input: pin + "\n", descriptors: .fileInput)
        XCTAssertEqual(result.status, 5)
        XCTAssertEqual(result.lines, ["refused standard input is not a pipe or socket"])
        XCTAssertEqual(try failures(stage), 0)
    }

    func testTerminalOnStandardInputIsRefused() throws {
        let stage = try stage()
        let result = try stage.helper(as: uid, ["verify", user], descriptors: .terminalInput)
        XCTAssertEqual(result.status, 5)
        XCTAssertEqual(result.lines, ["refused standard input is a terminal; the PIN must come from a pipe"])
        XCTAssertEqual(try failures(stage), 0)
    }

    func testOversizedAndMalformedInputIsRejectedUncounted() throws {
        let stage = try stage()
        let inputs: [(String, Int32)] = [
            (String(repeating: "7", count: 1 << 20), 6), ("", 5), ("73 91\n", 6), ("١٢٣٤\n", 6), ("7391\u{0}\n", 6),
            ("\n", 6), ("73910\n", 6),
        ]
        for (input, expected) in inputs {
            let result = try stage.helper(as: uid, ["verify", user], input: input)
            XCTAssertEqual(result.status, expected, "\(input.prefix(8).debugDescription): \(result.output)")
            XCTAssertEqual(result.lines.first, "ready")
        }
        XCTAssertEqual(try failures(stage), 0)
        XCTAssertEqual(try stage.helper(as: uid, ["verify", user], input: pin + "\n").status, 0, "still works")
    }

    func testWithoutSetuidBitItFailsCleanly() throws {
        let stage = try stage()
        let result = try stage.run(as: uid, stage.helperWithoutSetuidBit, ["verify", user], input: pin + "\n")
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.lines, ["error"])
        XCTAssertTrue(stage.logLines().contains { $0.contains("not running as root") })
    }
}
