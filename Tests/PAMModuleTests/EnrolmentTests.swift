// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// Users creating their own PIN at login (`enrol=`), and PINs an administrator hands out
/// that must be changed at first use (`set --expire`), through the real libpam. The
/// primary authentication here is pam_permit (a stand-in: Tests/e2e/enrol.sh proves the
/// same through real su, sudo and login with a real password).
final class EnrolmentTests: XCTestCase {
    let user = "daemon"
    let offerPrompt = "Create a 4-digit PIN for this computer? [y/N] "

    /// A `login` service: the stand-in primary, then the enrolment line with `arguments`.
    private func sandbox(_ arguments: String = "enrol=offer", configuration: String = Sandbox.fastKDF) throws -> Sandbox
    {
        let sandbox = try Sandbox(configuration: configuration)
        try sandbox.service(
            "login",
            [
                "auth required pam_permit.so",
                "auth optional MODULE STATE \(arguments)",
            ])
        try sandbox.probeService()
        return sandbox
    }

    func testAcceptingCreatesThePINThatTheNextLoginTakes() throws {
        let sandbox = try sandbox()
        let login = try sandbox.pam("login", user: user, responses: ["y", "5291", "5291"])
        XCTAssertEqual(login.code, PAMCode.success)
        XCTAssertEqual(login.prompts, [offerPrompt, "New PIN: ", "Retype new PIN: "])
        XCTAssertEqual(login.infos, ["PIN created. Next time you can log in with it."])
        XCTAssertEqual(try sandbox.status(user)["enrolled"] as? Bool, true)
        XCTAssertEqual(try sandbox.status(user)["vault"] as? String, "none", "no vault without enrol_vault")
        XCTAssertEqual(
            try sandbox.pam(user: user, responses: ["5291"]).code, PAMCode.success, "the next login takes the PIN")
        let again = try sandbox.pam("login", user: user)
        XCTAssertEqual(again.prompts, [], "a user with a PIN is not asked")
    }

    /// A user whose password has the PIN's form is told, once the PIN is created, that a
    /// screen taking either in one field (`pin_or_password`) checks it as the PIN; a
    /// longer password brings no such note. Only the password's form is looked at (the
    /// primary module's PAM_AUTHTOK, set here by pam_wrapper's pam_set_items).
    func testAPasswordOfThePINsFormIsPointedOutWhenThePINIsCreated() throws {
        let created = "PIN created. Next time you can log in with it."
        let note =
            "Your password is 4 digits, the form of a PIN: where one field takes the PIN or the password, it is "
            + "checked as your PIN. Choose a longer password with 'passwd' to use it there."
        for (password, infos) in [("8642", [created, note]), ("correct horse 8642", [created])] {
            let sandbox = try Sandbox(configuration: Sandbox.fastKDF)
            try sandbox.service(
                "login",
                [
                    "auth optional /usr/lib/x86_64-linux-gnu/pam_wrapper/pam_set_items.so",
                    "auth required pam_permit.so",
                    "auth optional MODULE STATE enrol=offer",
                ])
            try sandbox.probeService()
            let login = try sandbox.pam(
                "login", user: user, responses: ["y", "5291", "5291"], environment: ["PAM_AUTHTOK": password])
            XCTAssertEqual(login.code, PAMCode.success)
            XCTAssertEqual(login.infos, infos, password)
            XCTAssertEqual(try sandbox.status(user)["enrolled"] as? Bool, true)
        }
    }

    func testDecliningIsRememberedForTheSnooze() throws {
        for answer in ["n", "", "no", "later"] {
            let sandbox = try sandbox()
            let declined = try sandbox.pam("login", user: user, responses: [answer])
            XCTAssertEqual(declined.code, PAMCode.success, "declining never fails the login")
            XCTAssertEqual(declined.prompts, [offerPrompt])
            XCTAssertEqual(declined.infos, ["No PIN created. You can create one later with 'secureroom enrol'."])
            XCTAssertEqual(try sandbox.status(user)["enrolled"] as? Bool, false)
            XCTAssertTrue(FileManager.default.fileExists(atPath: sandbox.state + "/users/\(user).offer"))
            XCTAssertEqual(try sandbox.pam("login", user: user).prompts, [], "not asked again inside enrol_snooze (7d)")
        }
        // require asks at every login; a snooze of 0 asks again at once.
        for arguments in ["enrol=require", "enrol=offer enrol_snooze=0"] {
            let sandbox = try sandbox(arguments)
            XCTAssertEqual(try sandbox.pam("login", user: user, responses: ["n"]).prompts, [offerPrompt])
            XCTAssertEqual(try sandbox.pam("login", user: user, responses: ["n"]).prompts, [offerPrompt], arguments)
        }
    }

    func testWeakAndMismatchedPINsAreRefusedWithAReasonAndNothingIsWritten() throws {
        let sandbox = try sandbox()
        let retried = try sandbox.pam("login", user: user, responses: ["yes", "1234", "5291", "5292", "7361", "7361"])
        XCTAssertEqual(retried.code, PAMCode.success)
        XCTAssertEqual(retried.errors.count, 2)
        XCTAssertEqual(retried.errors.first?.hasPrefix("PIN rejected: "), true, "\(retried.errors)")
        XCTAssertEqual(retried.errors.last, "PINs do not match.")
        XCTAssertEqual(
            try sandbox.pam(user: user, responses: ["7361"]).code, PAMCode.success, "the third try was taken")

        let other = try self.sandbox()
        let failed = try other.pam("login", user: user, responses: ["y", "1234", "0000", "5291", "5292"])
        XCTAssertEqual(failed.code, PAMCode.success, "a failed enrolment never fails the login")
        XCTAssertEqual(failed.errors.count, 3)
        XCTAssertEqual(failed.infos, ["No PIN created. You can try again with 'secureroom enrol'."])
        XCTAssertEqual(try other.status(user)["enrolled"] as? Bool, false)
        XCTAssertFalse(FileManager.default.fileExists(atPath: other.state + "/users/\(user).offer"), "not a decline")
    }

    func testAConversationThatCannotAskLeavesTheLoginAsItWas() throws {
        let sandbox = try sandbox()
        for mode in ["fail", "none", "null-array", "null-reply"] {
            let login = try sandbox.pam("login", user: user, options: ["--conversation", mode])
            XCTAssertEqual(login.code, PAMCode.success, mode)
            XCTAssertEqual(try sandbox.status(user)["enrolled"] as? Bool, false, mode)
        }
        XCTAssertEqual(try sandbox.pam("login", user: user, silent: true).prompts, [], "PAM_SILENT: not asked")
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.state + "/users/\(user).offer"))
        XCTAssertEqual(
            try sandbox.pam("login", user: user, responses: ["n"]).prompts, [offerPrompt], "still offered later")
    }

    func testOnlyMembersOfEnrolGroupAreOffered() throws {
        let outside = try sandbox("enrol=offer enrol_group=nogroup")
        XCTAssertEqual(try outside.pam("login", user: user).prompts, [])
        let member = try sandbox("enrol=offer enrol_group=daemon")
        XCTAssertEqual(try member.pam("login", user: user, responses: ["n"]).prompts, [offerPrompt])
        XCTAssertEqual(try member.pam("login", user: "root", responses: ["n"]).prompts, [], "root is exempt")
    }

    func testEnrolVaultMakesTheVaultKeyAndShowsTheRecoveryKeyOnce() throws {
        let sandbox = try sandbox("enrol=offer enrol_vault")
        let login = try sandbox.pam("login", user: user, responses: ["y", "5291", "5291"])
        XCTAssertEqual(login.code, PAMCode.success)
        XCTAssertEqual(login.infos.count, 2)
        let shown = login.infos.last ?? ""
        XCTAssertTrue(shown.hasPrefix("Recovery key, shown only this once."), shown)
        XCTAssertNotNil(
            login.process.output.range(of: #"\d{5}(-\d{5}){7}"#, options: .regularExpression), login.process.output)
        XCTAssertEqual(try sandbox.status(user)["vault"] as? String, "pin")
        XCTAssertTrue(FileManager.default.fileExists(atPath: sandbox.state + "/users/\(user).recovery"))
    }

    func testThePINIsNeverProofInTheEnrolService() throws {
        let sandbox = try Sandbox.enrolled(user, pin: "5291")
        try sandbox.service(
            "secureroom-enrol",
            [
                "auth [success=done default=ignore] MODULE STATE",
                "auth requisite pam_deny.so",
            ])
        let attempt = try sandbox.pam("secureroom-enrol", user: user, responses: ["5291"])
        XCTAssertEqual(attempt.code, PAMCode.authError, "pam_deny decides: the module ignored the call")
        XCTAssertEqual(attempt.prompts, [], "no PIN prompt in secureroom-enrol")
    }

    func testAnExpiredPINMustBeChangedRightAfterItIsUsed() throws {
        let sandbox = try Sandbox(configuration: Sandbox.fastKDF)
        let set = try sandbox.cli(["set", user, "--stdin", "--expire"], input: "5291\n")
        XCTAssertEqual(set.status, 0, set.errorOutput)
        XCTAssertNotNil(try sandbox.status(user)["must_change"] as? String)
        // The profile's lines: the PIN first, then the account line with only_expired.
        try sandbox.service(
            "login",
            [
                "auth [success=done default=ignore] MODULE STATE",
                "auth required pam_permit.so",
                "account required pam_permit.so",
                "account [success=ok ignore=ignore default=die] MODULE STATE only_expired",
            ])
        try sandbox.probeService()
        // With the password (here: pam_permit) nothing is asked of the PIN.
        let byPassword = try sandbox.pam("login", user: user, responses: [""], operations: ["auth", "acct"])
        XCTAssertEqual(byPassword.results.last?.hasPrefix("acct: 0 "), true, "\(byPassword.results)")
        XCTAssertEqual(byPassword.prompts, ["PIN: "])

        // The handed-out PIN itself is refused as its own replacement.
        let login = try sandbox.pam(
            "login", user: user, responses: ["5291", "1234", "5291", "6028", "6028"], operations: ["auth", "acct"])
        XCTAssertEqual(login.code, PAMCode.success, "\(login.results)")
        XCTAssertEqual(login.prompts, ["PIN: ", "New PIN: ", "New PIN: ", "New PIN: ", "Retype new PIN: "])
        XCTAssertEqual(login.errors.first, "Your PIN has expired and must be changed now.")
        XCTAssertEqual(login.errors.last, "PIN rejected: it is the PIN you were given; choose your own.")
        XCTAssertEqual(login.infos.last, "PIN changed.")
        XCTAssertNil(try sandbox.status(user)["must_change"] as? String)
        XCTAssertEqual(try sandbox.pam(user: user, responses: ["6028"]).code, PAMCode.success)
        XCTAssertEqual(
            try sandbox.pam(user: user, responses: ["5291"]).code, PAMCode.authError, "the handed-out PIN is gone")

        // `expire` marks an existing PIN; a login that does not replace it is refused, and
        // the mark stays.
        XCTAssertEqual(try sandbox.cli(["expire", user]).status, 0)
        let abandoned = try sandbox.pam(
            "login", user: user, responses: ["6028", "1111", "1111", "1111"], operations: ["auth", "acct"])
        XCTAssertEqual(abandoned.code, PAMCode.permissionDenied)
        XCTAssertNotNil(try sandbox.status(user)["must_change"] as? String)
        XCTAssertEqual(
            try sandbox.pam(user: user, responses: ["6028"]).code, PAMCode.success, "the PIN itself is unchanged")
    }

    /// What `auth` keeps of an expired PIN, for `account` to refuse it as its own
    /// replacement, is argon2 with the record's parameters (here 512 KiB, above the 256
    /// configured now) and a salt of its own: never cheaper to search than the record.
    /// argon2 runs once for the check, once to keep it, once per new PIN compared with it,
    /// and once for the new record (with the configured parameters).
    func testAnExpiredPINIsKeptOnlyAsArgon2WithTheRecordsParameters() throws {
        let sandbox = try Sandbox(configuration: Sandbox.fastKDF.replacingOccurrences(of: "= 256", with: "= 512"))
        XCTAssertEqual(try sandbox.cli(["set", user, "--stdin", "--expire"], input: "5291\n").status, 0)
        try sandbox.write(sandbox.config, Sandbox.fastKDF, mode: 0o600)
        try sandbox.service(
            "login",
            [
                "auth [success=done default=ignore] MODULE STATE", "auth required pam_deny.so",
                "account [success=ok ignore=ignore default=die] MODULE STATE only_expired",
            ])
        let costs = sandbox.root + "/argon2-costs"
        XCTAssertTrue(FileManager.default.createFile(atPath: costs, contents: nil))
        let login = try sandbox.pam(
            "login", user: user, responses: ["5291", "5291", "6028", "6028"], operations: ["auth", "acct"],
            environment: ["LD_PRELOAD": try sandbox.argon2CounterLibrary(), "ARGON2_COST_FILE": costs])
        XCTAssertEqual(login.code, PAMCode.success, "\(login.results)")
        XCTAssertEqual(login.errors.last, "PIN rejected: it is the PIN you were given; choose your own.")
        let record = "m=512 t=1 p=1"
        let configured = "m=256 t=1 p=1"
        XCTAssertEqual(
            try String(contentsOfFile: costs, encoding: .utf8).split(separator: "\n").map(String.init),
            [record, record, record, record, configured],
            "the check, the kept PIN, 5291 and 6028 compared with it, the new record")
    }
}
