// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// The module in a PAM client that runs without root (a screen locker's situation):
/// it hands the check to the setuid helper, and the lockout is the one root callers get.
/// The caller is uid 1 ("daemon"), in a private mount namespace (UnprivilegedStage).
final class UnprivilegedPAMTests: XCTestCase {
    let user = "daemon", uid: UInt32 = 1
    let pin = "7391"

    private func stage(_ configuration: String = Sandbox.fastKDF, probeArguments: String = "") throws
        -> UnprivilegedStage
    {
        let stage = try UnprivilegedStage(sandbox: try Sandbox.enrolled(user, pin: pin, configuration: configuration))
        try stage.probeService(arguments: probeArguments)
        return stage
    }

    func testRightPINPassesThroughTheHelper() throws {
        let stage = try stage()
        let result = try stage.pam(as: uid, user: user, responses: [pin])
        XCTAssertEqual(result.code, PAMCode.success, result.process.output + result.process.errorOutput)
        XCTAssertEqual(result.prompts, ["PIN: "])
        XCTAssertEqual(try stage.sandbox.status(user)["failures"] as? Int, 0)
    }

    /// A host that ignores SIGCHLD (the kernel then reaps children, and waitpid fails):
    /// the module still gets the helper's answer, and puts the host's action back.
    func testHostIgnoringSIGCHLDStillGetsTheAnswer() throws {
        let stage = try stage()
        for (attempt, expected) in [(pin, PAMCode.success), ("1357", PAMCode.authError)] {
            let result = try stage.pam(as: uid, user: user, responses: [attempt], driverOptions: ["--ignore-sigchld"])
            XCTAssertEqual(result.code, expected, result.process.output)
            XCTAssertTrue(result.process.lines.contains("sigchld: ignored"), result.process.output)
        }
    }

    /// A PIN an administrator handed out (`set --expire`) is refused by the helper even
    /// when right: a screen locker has no account step in which to change it.
    func testAnExpiredPINIsRefusedWithoutAnAccountStep() throws {
        let stage = try stage()
        XCTAssertEqual(try stage.sandbox.cli(["expire", user]).status, 0)
        let result = try stage.pam(as: uid, user: user, responses: [pin])
        XCTAssertEqual(result.code, PAMCode.authError, result.process.output)
        XCTAssertEqual(
            result.errors,
            [
                "PIN not accepted here: your PIN must be changed first: "
                    + "run 'secureroom change', or log in with it at a terminal."
            ])
        // The hinted change works, and the PIN is then good here too.
        let changed = try stage.cli(as: uid, ["change", "--stdin"], input: "\(pin)\n6028\n")
        XCTAssertEqual(changed.status, 0, changed.errorOutput)
        XCTAssertNil(try stage.sandbox.status(user)["must_change"] as? String)
        XCTAssertEqual(try stage.pam(as: uid, user: user, responses: ["6028"]).code, PAMCode.success)
    }

    /// The caller's records locked by another process past the patience (a stalled su,
    /// say): the helper answers `busy`, the user is told, nothing is counted, and the
    /// stack may go on (PAM_AUTHINFO_UNAVAIL).
    func testRecordsLockedElsewhereAreToldAndNothingIsCounted() throws {
        let stage = try stage()
        let holder = try LockHolderProcess(path: stage.sandbox.state + "/users/\(user).lock")
        let result = try stage.pam(as: uid, user: user, responses: [pin])
        holder.stop()
        XCTAssertEqual(result.code, PAMCode.authInfoUnavailable, result.process.output)
        XCTAssertEqual(
            result.errors,
            ["The PIN cannot be checked now: another process holds its records. Nothing was counted."])
        XCTAssertEqual(try stage.sandbox.status(user)["failures"] as? Int, 0)
        XCTAssertTrue(
            stage.logLines().contains { $0.contains("secureroom-helper") && $0.contains("gave up for uid 1") },
            "\(stage.logLines())")
        XCTAssertEqual(try stage.pam(as: uid, user: user, responses: [pin]).code, PAMCode.success, "once it is free")
    }

    func testWrongPINFailsAndCounts() throws {
        let stage = try stage()
        let result = try stage.pam(as: uid, user: user, responses: ["1357"])
        XCTAssertEqual(result.code, PAMCode.authError)
        XCTAssertEqual(result.errors, ["Incorrect PIN. 4 attempts left before a 1-minute delay."])
        XCTAssertEqual(try stage.sandbox.status(user)["failures"] as? Int, 1)
        XCTAssertTrue(
            stage.logLines().contains {
                $0.contains("secureroom-helper") && $0.contains("authentication failure for daemon (uid 1): wrong PIN")
            },
            "\(stage.logLines())")
    }

    /// The same attempts, once by root (in-process check) and once by uid 1 (helper):
    /// identical codes, prompts and messages, and the same tally afterwards.
    func testLockoutIsTheSameAsForRootCallers() throws {
        let configuration = Sandbox.fastKDF + "deny = 3\nschedule =\n"
        let attempts = ["1357", "1357", "2468", "8024", pin]
        let privileged = try Sandbox.enrolled(user, pin: pin, configuration: configuration)
        let unprivileged = try stage(configuration)
        var rootTranscripts: [[String]] = []
        var userTranscripts: [[String]] = []
        for attempt in attempts {
            let asRoot = try privileged.pam(user: user, responses: [attempt])
            let asUser = try unprivileged.pam(as: uid, user: user, responses: [attempt])
            rootTranscripts.append(["\(asRoot.code)"] + asRoot.prompts + asRoot.errors)
            userTranscripts.append(["\(asUser.code)"] + asUser.prompts + asUser.errors)
        }
        XCTAssertEqual(userTranscripts, rootTranscripts)
        // 1357 counted once; after three distinct wrong PINs the right one is refused unasked.
        XCTAssertEqual(
            userTranscripts[1],
            [
                "\(PAMCode.authError)", "PIN: ",
                "Incorrect PIN (already tried; not counted again). 2 attempts left before the PIN is disabled.",
            ])
        XCTAssertEqual(
            userTranscripts[4], ["\(PAMCode.maxTries)", "PIN disabled after 3 failed attempts; ask an administrator."])
        XCTAssertEqual(try unprivileged.sandbox.status(user)["failures"] as? Int, 3)
        XCTAssertEqual(try privileged.status(user)["failures"] as? Int, 3)
    }

    /// pam/screen-locker as shipped: one field, "PIN or password: "; a wrong PIN ends the
    /// stack (auth_err=die) without pam_unix's prompt; any other answer goes to pam_unix
    /// (try_first_pass) without a second prompt and counts nothing.
    func testScreenLockerExampleTakesThePINOrThePasswordInOneField() throws {
        let stage = try stage()
        let example = try String(contentsOfFile: Artifacts.root + "/pam/screen-locker", encoding: .utf8)
        let lines = example.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && !$0.isEmpty }
        try stage.service(
            "screen-locker", lines.map { $0.replacingOccurrences(of: "pam_secureroom.so", with: "MODULE") })
        let right = try stage.pam(as: uid, "screen-locker", user: user, responses: [pin])
        XCTAssertEqual(right.code, PAMCode.success)
        XCTAssertEqual(right.prompts, ["PIN or password: "])
        let wrong = try stage.pam(as: uid, "screen-locker", user: user, responses: ["1357", "not-the-password"])
        XCTAssertEqual(wrong.code, PAMCode.authError)
        XCTAssertEqual(wrong.prompts, ["PIN or password: "])
        XCTAssertEqual(try stage.sandbox.status(user)["failures"] as? Int, 1)
        let password = try stage.pam(as: uid, "screen-locker", user: user, responses: ["not-the-password"])
        XCTAssertEqual(password.code, PAMCode.authError)
        XCTAssertEqual(password.prompts, ["PIN or password: "])
        XCTAssertEqual(try stage.sandbox.status(user)["failures"] as? Int, 1)
    }

    func testAnotherUsersPINIsRefusedLoggedAndNotCounted() throws {
        let stage = try stage()
        try stage.sandbox.setPIN("bin", pin: "5826")
        let result = try stage.pam(as: uid, user: "bin", responses: ["5826"])
        XCTAssertEqual(result.code, PAMCode.authError)
        XCTAssertEqual(try stage.sandbox.status("bin")["failures"] as? Int, 0)
        XCTAssertTrue(
            stage.logLines().contains {
                $0.contains("refused uid 1: asked to verify the PIN of \"bin\", not its own account")
            },
            "\(stage.logLines())")
    }

    func testUserWithoutPINIsIgnoredWithoutPrompt() throws {
        let stage = try stage()
        let result = try stage.pam(as: 2, user: "bin", responses: [])
        XCTAssertEqual(result.code, PAMCode.credentialExpired, "PAM_IGNORE falls through to pam_debug")
        XCTAssertEqual(result.prompts, [])
    }

    func testLockedPINIsRefusedWithoutPrompt() throws {
        let stage = try stage(Sandbox.fastKDF + "deny = 1\n")
        XCTAssertEqual(try stage.pam(as: uid, user: user, responses: ["1357"]).code, PAMCode.authError)
        let locked = try stage.pam(as: uid, user: user, responses: [pin])
        XCTAssertEqual(locked.code, PAMCode.maxTries)
        XCTAssertEqual(locked.prompts, [])
        XCTAssertEqual(locked.errors, ["PIN disabled after 1 failed attempt; ask an administrator."])
    }

    func testModuleArgumentsTheHelperIgnoresAreLogged() throws {
        let stage = try stage(probeArguments: "deny=3 debug")
        XCTAssertEqual(try stage.pam(as: uid, user: user, responses: [pin]).code, PAMCode.success)
        XCTAssertTrue(
            stage.logLines().contains { $0.contains("ignores the module arguments deny") }, "\(stage.logLines())")
    }

    func testMissingHelperIsAuthInfoUnavailable() throws {
        let stage = try stage(probeArguments: "helper=/nonexistent/secureroom-helper")
        let result = try stage.pam(as: uid, user: user, responses: [pin])
        XCTAssertEqual(result.code, PAMCode.authInfoUnavailable)
        XCTAssertEqual(result.prompts, [])
        XCTAssertTrue(
            stage.logLines().contains { $0.contains("cannot run /nonexistent/secureroom-helper") },
            "\(stage.logLines())")
    }

    func testHelperWithoutSetuidBitIsReportedClearly() throws {
        let stage = try stage()
        try stage.probeService(arguments: "helper=\(stage.helperWithoutSetuidBit)")
        let result = try stage.pam(as: uid, user: user, responses: [pin])
        XCTAssertEqual(result.code, PAMCode.authInfoUnavailable)
        XCTAssertTrue(stage.logLines().contains { $0.contains("is not installed setuid root") }, "\(stage.logLines())")
    }
}
