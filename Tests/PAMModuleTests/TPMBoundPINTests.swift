// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// A PIN bound to a TPM (a software TPM of each test's own), through the real libpam and
/// module: the chip takes part in every check and counts wrong PINs in its own counter
/// (read by tpm2-tools); a chip that is gone, another chip, or one in lockout refuses
/// cleanly, never as a wrong PIN and never as a success.
final class TPMBoundPINTests: XCTestCase {
    private let user = "daemon"
    private let pin = "6193"
    private var tpm: SoftwareTPM!

    override func setUpWithError() throws { tpm = try SoftwareTPM() }
    override func tearDown() { tpm?.stop() }

    /// A sandbox whose PINs are bound to `chip` (default: this test's TPM).
    private func boundSandbox(_ chip: SoftwareTPM? = nil, extra: String = "") throws -> Sandbox {
        let sandbox = try Sandbox(
            configuration: Sandbox.fastKDF + "tpm = required\ntpm_tcti = \((chip ?? tpm).tcti)\n" + extra)
        try sandbox.setPIN(user, pin: pin)
        try sandbox.probeService()
        return sandbox
    }

    private func credential(_ sandbox: Sandbox) throws -> String {
        try String(contentsOfFile: "\(sandbox.state)/users/\(user).credential", encoding: .utf8)
    }

    private func failures(_ sandbox: Sandbox) throws -> Int? { try sandbox.status(user)["failures"] as? Int }

    func testTheChipTakesPartInEveryCheckAndCountsWrongPINs() throws {
        let sandbox = try boundSandbox()
        XCTAssertTrue(try credential(sandbox).hasPrefix("SECUREROOM-CREDENTIAL/2\n"))
        XCTAssertEqual(try sandbox.status(user)["tpm"] as? String, "bound")
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success)
        XCTAssertEqual(try tpm.lockoutCounter(), 0)
        let wrong = try sandbox.pam(user: user, responses: ["2580"])
        XCTAssertEqual(wrong.code, PAMCode.authError)
        XCTAssertEqual(try tpm.lockoutCounter(), 1, "a wrong PIN is a failed authorization on the chip")
        XCTAssertEqual(try failures(sandbox), 1, "and counted by SecureRoom first")
        let repeated = try sandbox.pam(user: user, responses: ["2580"])
        XCTAssertEqual(repeated.code, PAMCode.authError)
        XCTAssertTrue(repeated.errors.joined().contains("already tried"), "\(repeated.errors)")
        XCTAssertEqual(try tpm.lockoutCounter(), 1, "a repeated typo is not put to the chip again")
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success)
        XCTAssertEqual(try tpm.leftoverHandles(), [])
    }

    /// The state, pepper included, on another machine's TPM: the right PIN opens nothing,
    /// and the attempt is not counted (the chip tested no guess).
    func testTheSameStateOnAnotherChipOpensNothing() throws {
        let sandbox = try boundSandbox()
        let other = try SoftwareTPM()
        defer { other.stop() }
        try sandbox.write(sandbox.config, Sandbox.fastKDF + "tpm = required\ntpm_tcti = \(other.tcti)\n", mode: 0o600)
        let run = try sandbox.pam(user: user, responses: [pin])
        XCTAssertEqual(run.code, PAMCode.authInfoUnavailable)
        XCTAssertTrue(run.errors.joined().contains("belongs to another security chip"), "\(run.errors)")
        XCTAssertEqual(try failures(sandbox), 0)
        XCTAssertEqual(try other.lockoutCounter(), 0)
        XCTAssertEqual(try sandbox.status(user)["tpm"] as? String, "bound-other-chip", "status says why")
    }

    func testAChipThatIsGoneRefusesWithoutAPrompt() throws {
        let sandbox = try boundSandbox()
        tpm.stop()
        let run = try sandbox.pam(user: user, responses: [pin])
        XCTAssertEqual(run.code, PAMCode.authInfoUnavailable, "the stack goes on to the password")
        XCTAssertEqual(run.prompts, [])
        XCTAssertEqual(run.errors, ["The security chip does not answer; use your password."])
        XCTAssertEqual(try failures(sandbox), 0)
        XCTAssertEqual(try sandbox.status(user)["tpm"] as? String, "bound-unreachable", "status says why")
    }

    /// A chip that allows 3 failed authorizations (swtpm's default) locks for 1,000 s after
    /// three accounts' wrong PINs (one each: an account's share of 3 is 1): no prompt, no
    /// argon2, the time left from the chip, and the stack goes on to the password.
    func testAChipInLockoutRefusesWithoutAPromptAndSaysForHowLong() throws {
        tpm.stop()
        tpm = try SoftwareTPM(maxTries: 3, recoverySeconds: 1_000)
        let sandbox = try boundSandbox()
        for other in ["bin", "sys"] { try sandbox.setPIN(other, pin: pin) }
        for (account, guess) in [(user, "2580"), ("bin", "1470"), ("sys", "3690")] {
            XCTAssertEqual(try sandbox.pam(user: account, responses: [guess]).code, PAMCode.authError)
        }
        XCTAssertEqual(try tpm.lockoutCounter(), 3)
        let run = try sandbox.pam(user: user, responses: [pin])
        XCTAssertEqual(run.code, PAMCode.authInfoUnavailable)
        XCTAssertEqual(run.prompts, [])
        XCTAssertEqual(run.errors, ["The security chip is locked; try again in 17 min, or use your password."])
        XCTAssertEqual(try failures(sandbox), 1, "nothing more counted")
    }

    /// One account cannot lock the chip for all: its wrong PINs on the chip are its share
    /// of the chip's counter (fewer than half the tries: 2 of 5 here), which a right PIN
    /// does not forgive; beyond it the account is refused before the prompt until the chip
    /// has forgotten as many (5 × 1,000 s). A name without a PIN gets the same on its decoy.
    func testOneAccountCannotLockTheChipAlone() throws {
        tpm.stop()
        tpm = try SoftwareTPM(maxTries: 5, recoverySeconds: 1_000)
        let sandbox = try boundSandbox(extra: "nopin = fail\nschedule =\n")
        for name in [user, "bin"] {
            for guess in ["2580", "1470"] {
                XCTAssertEqual(try sandbox.pam(user: name, responses: [guess]).code, PAMCode.authError, name)
            }
            let refused = try sandbox.pam(user: name, responses: [pin])
            XCTAssertEqual(refused.code, PAMCode.authInfoUnavailable, name)
            XCTAssertEqual(refused.prompts, [], name)
            XCTAssertEqual(
                refused.errors,
                ["Too many wrong PINs went to the security chip; try again in 84 min, or use your password."], name)
        }
        XCTAssertEqual(
            try tpm.lockoutCounter(), 2, "the bound account's two; the decoy's stand-ins are not counted by the chip")
        XCTAssertEqual(try failures(sandbox), 2)
    }

    /// A PIN set before the TPM was used is bound at its next successful login, in one
    /// atomic write; the login itself is not delayed by a failure of the chip.
    func testAnUnboundPINIsBoundAtItsNextLogin() throws {
        let sandbox = try Sandbox(configuration: Sandbox.fastKDF)
        try sandbox.setPIN(user, pin: pin)
        try sandbox.probeService()
        XCTAssertTrue(try credential(sandbox).hasPrefix("SECUREROOM-CREDENTIAL/1\n"))
        XCTAssertEqual(try sandbox.status(user)["tpm"] as? String, "none")
        try sandbox.write(sandbox.config, Sandbox.fastKDF + "tpm = auto\ntpm_tcti = \(tpm.tcti)\n", mode: 0o600)
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success)
        XCTAssertTrue(try credential(sandbox).hasPrefix("SECUREROOM-CREDENTIAL/2\n"))
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success)
        XCTAssertEqual(try sandbox.pam(user: user, responses: ["2580"]).code, PAMCode.authError)
        XCTAssertEqual(try tpm.lockoutCounter(), 1)
    }

    /// `secureroom tpm status` reads the chip's own counter, and `harden` sets its limits
    /// and a lockout authorization once, then refuses.
    func testTheAdministratorSeesAndHardensTheChip() throws {
        tpm.stop()
        tpm = try SoftwareTPM(maxTries: 3, recoverySeconds: 1_000)
        let sandbox = try boundSandbox()
        XCTAssertEqual(try sandbox.pam(user: user, responses: ["2580"]).code, PAMCode.authError)
        let before =
            try JSONSerialization.jsonObject(with: Data(try sandbox.cli(["tpm", "status", "--json"]).output.utf8))
            as? [String: Any]
        XCTAssertEqual(before?["present"] as? Bool, true)
        XCTAssertEqual(before?["counter"] as? Int, 1)
        XCTAssertEqual(before?["max_tries"] as? Int, 3)
        XCTAssertEqual(before?["lockout_auth_set"] as? Bool, false)
        XCTAssertEqual(before?["bound_users"] as? Int, 1)
        let text = try sandbox.cli(["tpm", "status"])
        XCTAssertTrue(text.errorOutput.contains("one user's wrong PINs can lock it for everyone"), text.errorOutput)
        let harden = try sandbox.cli(["tpm", "harden", "--max-tries", "32", "--recovery-seconds", "600"])
        XCTAssertEqual(harden.status, 0, harden.errorOutput)
        XCTAssertTrue(harden.output.contains("hex:"), harden.output)
        let after =
            try JSONSerialization.jsonObject(with: Data(try sandbox.cli(["tpm", "status", "--json"]).output.utf8))
            as? [String: Any]
        XCTAssertEqual(after?["max_tries"] as? Int, 32)
        XCTAssertEqual(after?["recovery_seconds"] as? Int, 600)
        XCTAssertEqual(after?["lockout_auth_set"] as? Bool, true)
        let again = try sandbox.cli(["tpm", "harden"])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.errorOutput.contains("already has a lockout authorization"), again.errorOutput)
        tpm.stop()
        let gone =
            try JSONSerialization.jsonObject(with: Data(try sandbox.cli(["tpm", "status", "--json"]).output.utf8))
            as? [String: Any]
        XCTAssertEqual(gone?["present"] as? Bool, false)
    }

    /// `nopin=fail` with bound PINs: a name without a PIN does the chip work of a bound
    /// PIN's wrong guess (the decoy's own tag key, made with the first bound PIN), so the
    /// transcripts match, also when the chip is gone, and the chip counts none of it.
    func testWithoutAPINTheAnswersAreTheSameAsABoundPINs() throws {
        let sandbox = try boundSandbox(extra: "nopin = fail\nschedule =\n")
        XCTAssertTrue(FileManager.default.fileExists(atPath: "\(sandbox.state)/users/.decoy.tpm"))
        var transcripts: [String: [String]] = [:]
        for name in [user, "bin", "srnosuchuser"] {
            try sandbox.forgetDecoySlots()
            transcripts[name] = try ["2580", "2580", "1470"].map { guess in
                let run = try sandbox.pam(user: name, responses: [guess])
                return "\(run.prompts) \(run.errors) \(run.code)"
            }
        }
        XCTAssertEqual(transcripts[user], transcripts["bin"])
        XCTAssertEqual(transcripts[user], transcripts["srnosuchuser"])
        XCTAssertEqual(
            try tpm.lockoutCounter(), 2,
            "the bound PIN's two distinct wrong guesses; the decoys count nothing on the chip")
        tpm.stop()
        let gone = try [user, "bin", "srnosuchuser"].map { name -> String in
            let run = try sandbox.pam(user: name, responses: [pin])
            return "\(run.prompts) \(run.errors) \(run.code)"
        }
        XCTAssertEqual(Set(gone).count, 1, "\(gone)")
        XCTAssertEqual(
            gone[0], "[] [\"The security chip does not answer; use your password.\"] \(PAMCode.authInfoUnavailable)")
    }

    /// tpm2-tss reads its logging from the environment, which in a PAM module is the
    /// caller's: a TSS2_LOGFILE would have root append to any file, a TSS2_LOG print
    /// session details. The module turns both off before any TPM call.
    func testTheCallersEnvironmentDoesNotConfigureTheTPMLibrary() throws {
        let sandbox = try boundSandbox()
        let logFile = sandbox.root + "/tss2.log"
        let run = try sandbox.pam(
            user: user, responses: ["2580"],
            environment: ["TSS2_LOG": "all+trace", "TSS2_LOGFILE": logFile])
        XCTAssertEqual(run.code, PAMCode.authError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: logFile), "root appended to a file the caller named")
        XCTAssertFalse(run.process.errorOutput.contains("esys"), run.process.errorOutput)
    }

    /// `tpm=required` with no TPM: setting a PIN fails with a clear error, nothing written.
    func testRequiredWithoutATPMRefusesToSetAPIN() throws {
        tpm.stop()
        let sandbox = try Sandbox(configuration: Sandbox.fastKDF + "tpm = required\ntpm_tcti = \(tpm.tcti)\n")
        let result = try sandbox.cli(["set", user, "--stdin", "--allow-weak"], input: pin + "\n")
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.errorOutput.contains("the TPM does not answer"), result.errorOutput)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(sandbox.state)/users/\(user).credential"))
    }
}
