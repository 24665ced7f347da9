// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// A PIN bound to its own counter in a TPM (a software TPM of each test's own), through
/// the real libpam and module: the chip takes part in every check and counts wrong PINs on
/// the PIN's own counter, never on the chip's dictionary-attack counter (read by
/// tpm2-tools); at the counter's limit the chip refuses the PIN whatever is done to the
/// files; a chip that is gone or another chip refuses cleanly, never as a wrong PIN and
/// never as a success.
final class TPMBoundPINTests: XCTestCase {
    private let user = "daemon"
    private let pin = "6193"
    private var tpm: SoftwareTPM!

    override func setUpWithError() throws { tpm = try SoftwareTPM() }
    override func tearDown() { tpm?.stop() }

    /// A sandbox whose PINs are bound to `chip` (default: this test's TPM).
    private func boundSandbox(_ chip: SoftwareTPM? = nil, extra: String = "") throws -> Sandbox {
        let sandbox = try Sandbox(
            configuration: (chip ?? tpm).requiredConfiguration + extra)
        try sandbox.setPIN(user, pin: pin)
        try sandbox.probeService()
        return sandbox
    }

    private func credential(_ sandbox: Sandbox, _ name: String? = nil) throws -> String {
        try String(contentsOfFile: "\(sandbox.state)/users/\(name ?? user).credential", encoding: .utf8)
    }

    private func failures(_ sandbox: Sandbox) throws -> Int? { try sandbox.status(user)["failures"] as? Int }

    /// The wrong PINs on the user's own counter in the chip, as `secureroom status` reads it.
    private func chipFailures(_ sandbox: Sandbox, _ name: String? = nil) throws -> Int? {
        try sandbox.status(name ?? user)["tpm_failures"] as? Int
    }

    func testTheChipTakesPartInEveryCheckAndCountsWrongPINsOnThePINsOwnCounter() throws {
        let sandbox = try boundSandbox()
        XCTAssertTrue(try credential(sandbox).hasPrefix("SECUREROOM-CREDENTIAL/3\n"))
        let status = try sandbox.status(user)
        XCTAssertEqual(status["tpm"] as? String, "bound")
        XCTAssertEqual(status["tpm_limit"] as? Int, 9, "deny=")
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success)
        for (count, guess) in [(1, "2580"), (2, "2580")] {
            let wrong = try sandbox.pam(user: user, responses: [guess])
            XCTAssertEqual(wrong.code, PAMCode.authError)
            XCTAssertFalse(
                wrong.errors.joined().contains("already tried"), "a bound PIN keeps no tags: \(wrong.errors)")
            XCTAssertEqual(try chipFailures(sandbox), count, "every wrong PIN counts on the PIN's counter")
            XCTAssertEqual(try failures(sandbox), count, "and in SecureRoom's tally")
        }
        XCTAssertEqual(try tpm.lockoutCounter(), 0, "nothing on the chip's own counter")
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success)
        XCTAssertEqual(try chipFailures(sandbox), 0, "the right PIN clears its typos on the chip")
        XCTAssertFalse(
            try String(contentsOfFile: "\(sandbox.state)/users/\(user).lockout", encoding: .utf8).contains("seen:"))
        XCTAssertEqual(try tpm.leftoverHandles(), [])
    }

    /// The state, pepper included, on another machine's TPM: the right PIN opens nothing,
    /// and the attempt is not counted (the PIN's counter is not there).
    func testTheSameStateOnAnotherChipOpensNothing() throws {
        let sandbox = try boundSandbox()
        let other = try SoftwareTPM()
        defer { other.stop() }
        try sandbox.write(sandbox.config, other.requiredConfiguration, mode: 0o600)
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
        XCTAssertRefusedBeforeAsking(
            try sandbox.pam(user: user, responses: [pin]),
            errors: ["The security chip does not answer; use your password."])
        XCTAssertEqual(try failures(sandbox), 0)
        XCTAssertEqual(try sandbox.status(user)["tpm"] as? String, "bound-unreachable", "status says why")
    }

    /// Nobody locks bound PINs by locking the chip: in dictionary-attack lockout (here
    /// after 3 wrong passwords of another object), the PIN's objects have noDA and its
    /// counter is its own, so the right PIN opens and a wrong one counts as ever.
    func testAChipInDictionaryAttackLockoutStillChecksBoundPINs() throws {
        tpm.stop()
        tpm = try SoftwareTPM(maxTries: 3, recoverySeconds: 1_000)
        let sandbox = try boundSandbox()
        try tpm.lockOut(tries: 3)
        XCTAssertEqual(try tpm.lockoutCounter(), 3)
        XCTAssertEqual(try sandbox.pam(user: user, responses: ["2580"]).code, PAMCode.authError)
        XCTAssertEqual(try chipFailures(sandbox), 1)
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success)
        XCTAssertEqual(try tpm.lockoutCounter(), 3, "none of it on the chip's counter")
    }

    /// Root without the TPM recovery secret, as the issue's attacker: after every wrong
    /// guess they put back the whole state directory as it was and run `secureroom reset`.
    /// The chip still counts: after `deny` wrong PINs (3 here) it refuses the right one too,
    /// before any prompt, and says so; `status` says "bound-spent". Another user's PIN
    /// keeps working throughout, and the chip's own counter never moves.
    func testRestoringTheStateAfterEveryGuessGainsNoGuess() throws {
        let sandbox = try boundSandbox(extra: "deny = 3\nschedule =\n")
        try sandbox.setPIN("bin", pin: "2468")
        let saved = sandbox.root + "/saved-state"
        try FileManager.default.copyItem(atPath: sandbox.state, toPath: saved)
        for guess in ["1111", "2222", "3333"] {
            XCTAssertEqual(try sandbox.pam(user: user, responses: [guess]).code, PAMCode.authError, guess)
            try FileManager.default.removeItem(atPath: sandbox.state)
            try FileManager.default.copyItem(atPath: saved, toPath: sandbox.state)
            XCTAssertEqual(try sandbox.cli(["reset", user]).status, 0)
            XCTAssertEqual(try failures(sandbox), 0, "the files forgot the guess")
            XCTAssertEqual(try sandbox.pam(user: "bin", responses: ["2468"]).code, PAMCode.success, "another user")
        }
        XCTAssertRefusedBeforeAsking(
            try sandbox.pam(user: user, responses: [pin]),
            errors: [
                "Your PIN was blocked by the security chip after too many wrong PINs; use your password, then set a "
                    + "new PIN with 'secureroom enrol --replace' or ask an administrator."
            ], "the chip refuses every PIN now")
        let status = try sandbox.status(user)
        XCTAssertEqual(status["tpm"] as? String, "bound-spent")
        XCTAssertEqual(status["tpm_failures"] as? Int, 3)
        XCTAssertEqual(try sandbox.pam(user: "bin", responses: ["2468"]).code, PAMCode.success)
        XCTAssertEqual(try tpm.lockoutCounter(), 0)
        // A new PIN gets a new counter; the spent one's index is freed.
        let before = try tpm.nvIndices()
        try sandbox.setPIN(user, pin: "7531")
        XCTAssertEqual(try sandbox.pam(user: user, responses: ["7531"]).code, PAMCode.success)
        XCTAssertEqual(try tpm.nvIndices().count, before.count, "one index defined, one freed")
    }

    /// SECURITY.md's bound for root, or a thief with the disk and the chip (hardened): a
    /// right PIN sets the PIN's counter in the chip back to 0 (a PIN_FAIL index does), and
    /// the year-long count lives in files such an attacker puts back. So they get deny − 1
    /// wrong PINs between two logins of the owner, unseen, and deny after the last, which
    /// spends the PIN: (deny − 1) · N + deny in all over N logins of the owner. Measured with
    /// deny = 3 and N = 2, the state restored after every wrong PIN; the figure is the one
    /// SECURITY.md's table states.
    func testRootGetsDenyMinusOneWrongPINsPerLoginOfTheOwner() throws {
        let deny = 3
        let logins = 2
        let sandbox = try boundSandbox(extra: "deny = \(deny)\nschedule =\n")
        let saved = sandbox.root + "/saved-state"
        try FileManager.default.copyItem(atPath: sandbox.state, toPath: saved)
        var wrong = 0
        func guessAndRestore() throws {
            let guess = String(format: "%04d", 1000 + wrong * 1111 % 9000)
            XCTAssertEqual(try sandbox.pam(user: user, responses: [guess]).code, PAMCode.authError, guess)
            wrong += 1
            try FileManager.default.removeItem(atPath: sandbox.state)
            try FileManager.default.copyItem(atPath: saved, toPath: sandbox.state)
            XCTAssertEqual(try failures(sandbox), 0, "the files forgot the guess")
        }
        for login in 1...logins {
            for _ in 1..<deny { try guessAndRestore() }
            XCTAssertEqual(try chipFailures(sandbox), deny - 1, "login \(login): the chip counted them")
            XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success, "login \(login)")
            XCTAssertEqual(try chipFailures(sandbox), 0, "the owner's login set the chip's count back to 0")
        }
        for _ in 1...deny { try guessAndRestore() }
        XCTAssertEqual(try sandbox.status(user)["tpm"] as? String, "bound-spent")
        XCTAssertEqual(wrong, (deny - 1) * logins + deny, "the measured bound")

        // SECURITY.md's row for this attacker states the same formula, and for deny = 9.
        let security = try String(contentsOfFile: Artifacts.root + "/docs/SECURITY.md", encoding: .utf8)
        let row = try XCTUnwrap(
            security.split(separator: "\n").first { $0.hasPrefix("| Root, or disk and chip, chip hardened") })
        XCTAssertTrue(row.contains("(deny − 1) · N + deny"), String(row))
        XCTAssertTrue(row.contains("8 between two logins of the owner, 9 after the last"), String(row))
        XCTAssertFalse(security.contains("wrong PINs, ever"), "the bound that does not hold is gone")
    }

    /// Whoever can open the chip (root; on Debian the `tss` group, which owns /dev/tpmrm0)
    /// can spend a bound PIN's guesses without the state: each TPM2_NV_Read of the PIN's
    /// index with a wrong password counts on its counter, as does TPM2_PolicySecret. The PIN
    /// itself as that password is just as wrong (the index's value is argon2 of it with the
    /// root-only pepper), so without the pepper nobody tests a guess; at `deny` the PIN is
    /// spent. SECURITY.md says so.
    func testWhoeverOpensTheChipCanSpendButNotTestABoundPIN() throws {
        let deny = 3
        let sandbox = try boundSandbox(extra: "deny = \(deny)\nschedule =\n")
        let line = try credential(sandbox).split(separator: "\n").first { $0.hasPrefix("tpm-index: ") }
        let index = "0x" + (try XCTUnwrap(line)).dropFirst("tpm-index: ".count)
        for (tries, password) in [pin, "not-the-pin", pin].enumerated() {
            let read = try tpm.tool(["tpm2_nvread", index, "-C", index, "-P", password])
            XCTAssertNotEqual(read.status, 0, "refused: \(password)")
            XCTAssertEqual(try chipFailures(sandbox), tries + 1, "counted on the PIN's own counter")
        }
        XCTAssertEqual(try sandbox.status(user)["tpm"] as? String, "bound-spent", "spent after \(deny)")
        XCTAssertEqual(try tpm.lockoutCounter(), 0, "not on the chip's dictionary-attack counter")
        let security = try String(contentsOfFile: Artifacts.root + "/docs/SECURITY.md", encoding: .utf8)
        XCTAssertTrue(security.contains("**Whoever can open the chip**"), "SECURITY.md's row for this attacker")
        XCTAssertTrue(security.contains("`testWhoeverOpensTheChipCanSpendButNotTestABoundPIN`"))
    }

    /// A chip with no room for another counter: `tpm=required` refuses to set the PIN and
    /// says why; `tpm=auto` keeps it unbound and says so, and the PIN works.
    func testAFullChipRefusesOrKeepsThePINUnbound() throws {
        try tpm.fillNV()
        let required = try Sandbox(configuration: tpm.requiredConfiguration)
        let refused = try required.cli(["set", user, "--stdin", "--allow-weak"], input: pin + "\n")
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.errorOutput.contains("no room for another PIN's counter"), refused.errorOutput)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(required.state)/users/\(user).credential"))

        let auto = try Sandbox(configuration: Sandbox.fastKDF + "tpm = auto\ntpm_tcti = \(tpm.tcti)\n")
        let kept = try auto.cli(["set", user, "--stdin", "--allow-weak"], input: pin + "\n")
        XCTAssertEqual(kept.status, 0, kept.errorOutput)
        XCTAssertTrue(kept.errorOutput.contains("not bound to the TPM"), kept.errorOutput)
        XCTAssertTrue(try credential(auto).hasPrefix("SECUREROOM-CREDENTIAL/1\n"))
        try auto.probeService()
        XCTAssertEqual(try auto.pam(user: user, responses: [pin]).code, PAMCode.success)
        XCTAssertTrue(try credential(auto).hasPrefix("SECUREROOM-CREDENTIAL/1\n"), "still no room at the login")
    }

    /// `tpm_pcrs=`: a PIN sealed to the boot's PCR 7 works until PCR 7 changes (another
    /// Secure Boot state); then it is refused before the prompt, nothing is counted on its
    /// counter, `status` says why, and a new PIN binds to the boot as it is.
    func testAPINSealedToTheBootIsRefusedWhenTheBootChanged() throws {
        let sandbox = try boundSandbox(extra: "tpm_pcrs = 7\n")
        XCTAssertTrue(try credential(sandbox).contains("\ntpm-pcrs: 7\n"))
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success)
        let extended = try tpm.tool(["tpm2_pcrextend", "7:sha256=" + String(repeating: "5a", count: 32)])
        XCTAssertEqual(extended.status, 0, extended.errorOutput)
        XCTAssertRefusedBeforeAsking(
            try sandbox.pam(user: user, responses: [pin]),
            errors: [
                "This computer started differently from when your PIN was set (firmware or boot changed); use your "
                    + "password, and set your PIN again."
            ])
        XCTAssertEqual(try sandbox.status(user)["tpm"] as? String, "bound-other-boot")
        XCTAssertEqual(try chipFailures(sandbox), 0, "nothing was tried")
        try sandbox.setPIN(user, pin: "7531")
        XCTAssertEqual(try sandbox.pam(user: user, responses: ["7531"]).code, PAMCode.success)
    }

    /// Removing a PIN frees its counter in the chip (on a chip whose owner authorization
    /// is still the factory's empty one).
    func testRemovingAPINFreesItsIndex() throws {
        let sandbox = try boundSandbox()
        let indices = try tpm.nvIndices()
        XCTAssertEqual(indices.count, 2, "the PIN's and the decoys': \(indices)")
        XCTAssertEqual(try sandbox.cli(["reset", user, "--remove-pin"]).status, 0)
        XCTAssertEqual(try tpm.nvIndices().count, 1, "the decoys' stays")
    }

    /// A PIN set before the TPM was used is bound to its own counter at its next successful
    /// login, in one atomic write, and must then be changed (a copy of its unbound record
    /// would still find it); the login itself is not delayed by a failure of the chip.
    func testAnUnboundPINIsBoundAtItsNextLoginAndMustChange() throws {
        let sandbox = try Sandbox(configuration: Sandbox.fastKDF)
        try sandbox.setPIN(user, pin: pin)
        try sandbox.probeService()
        XCTAssertTrue(try credential(sandbox).hasPrefix("SECUREROOM-CREDENTIAL/1\n"))
        XCTAssertEqual(try sandbox.status(user)["tpm"] as? String, "none")
        try sandbox.write(sandbox.config, Sandbox.fastKDF + "tpm = auto\ntpm_tcti = \(tpm.tcti)\n", mode: 0o600)
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success)
        XCTAssertTrue(try credential(sandbox).hasPrefix("SECUREROOM-CREDENTIAL/3\n"))
        XCTAssertNotNil(try sandbox.status(user)["must_change"] as? String, "binding an old PIN marks it must-change")
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success)
        XCTAssertEqual(try sandbox.pam(user: user, responses: ["2580"]).code, PAMCode.authError)
        XCTAssertEqual(try chipFailures(sandbox), 1)
        XCTAssertEqual(try tpm.lockoutCounter(), 0)
    }

    private func tpmStatus(_ sandbox: Sandbox) throws -> [String: Any]? {
        try JSONSerialization.jsonObject(with: Data(try sandbox.cli(["tpm", "status", "--json"]).output.utf8))
            as? [String: Any]
    }

    /// `secureroom tpm status` says whether the chip is hardened and reads its counters;
    /// `harden` takes the owner and lockout authorizations with one secret, shown once,
    /// then refuses; PINs are still bound afterwards (through the owner's policy).
    func testTheAdministratorSeesAndHardensTheChip() throws {
        tpm.stop()
        tpm = try SoftwareTPM(maxTries: 3, recoverySeconds: 1_000)
        let sandbox = try boundSandbox()
        XCTAssertEqual(try sandbox.pam(user: user, responses: ["2580"]).code, PAMCode.authError)
        let before = try tpmStatus(sandbox)
        XCTAssertEqual(before?["present"] as? Bool, true)
        XCTAssertEqual(before?["hardened"] as? Bool, false)
        XCTAssertEqual(before?["platform_open"] as? Bool, true, "swtpm leaves it open")
        XCTAssertEqual(before?["counter"] as? Int, 0, "the wrong PIN counted on its own index")
        XCTAssertEqual(before?["max_tries"] as? Int, 3)
        XCTAssertEqual(before?["pin_indices"] as? Int, 2, "the PIN's and the decoys'")
        XCTAssertEqual(before?["bound_users"] as? Int, 1)
        let text = try sandbox.cli(["tpm", "status"])
        XCTAssertTrue(text.errorOutput.contains("the TPM is not hardened"), text.errorOutput)
        let harden = try sandbox.cli(["tpm", "harden", "--max-tries", "32", "--recovery-seconds", "600"])
        XCTAssertEqual(harden.status, 0, harden.errorOutput)
        XCTAssertTrue(harden.output.contains("TPM recovery secret"), harden.output)
        XCTAssertNotNil(harden.output.range(of: #"hex:[0-9a-f]{64}"#, options: .regularExpression), harden.output)
        XCTAssertTrue(harden.errorOutput.contains("platform hierarchy is open"), harden.errorOutput)
        let after = try tpmStatus(sandbox)
        XCTAssertEqual(after?["hardened"] as? Bool, true)
        XCTAssertEqual(after?["max_tries"] as? Int, 32)
        XCTAssertEqual(after?["recovery_seconds"] as? Int, 600)
        let again = try sandbox.cli(["tpm", "harden"])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.errorOutput.contains("already has an owner or lockout authorization"), again.errorOutput)
        try sandbox.setPIN("bin", pin: "2468")
        XCTAssertEqual(try sandbox.pam(user: "bin", responses: ["2468"]).code, PAMCode.success, "bound after hardening")
        XCTAssertEqual(try tpmStatus(sandbox)?["pin_indices"] as? Int, 3)
        tpm.stop()
        XCTAssertEqual(try tpmStatus(sandbox)?["present"] as? Bool, false)
    }

    /// On a hardened chip a replaced PIN's counter cannot be freed without the TPM recovery
    /// secret: `tpm status` counts them, `tpm prune` with the secret frees them (a wrong
    /// secret frees nothing), and the PINs in use keep working.
    func testPruneFreesTheCountersOfReplacedPINsWithTheSecret() throws {
        let sandbox = try boundSandbox()
        let harden = try sandbox.cli(["tpm", "harden"])
        XCTAssertEqual(harden.status, 0, harden.errorOutput)
        let secret = try XCTUnwrap(harden.output.split(separator: "\n").first { $0.hasPrefix("hex:") })
        for replacement in ["2468", "7531"] { try sandbox.setPIN(user, pin: replacement) }
        XCTAssertEqual(try tpmStatus(sandbox)?["pin_indices_unnamed"] as? Int, 2, "two replaced PINs' counters")
        let wrong = try sandbox.cli(["tpm", "prune"], input: "hex:" + String(repeating: "ab", count: 32) + "\n")
        XCTAssertEqual(wrong.status, 1)
        XCTAssertEqual(try tpmStatus(sandbox)?["pin_indices_unnamed"] as? Int, 2)
        let pruned = try sandbox.cli(["tpm", "prune"], input: secret + "\n")
        XCTAssertEqual(pruned.status, 0, pruned.errorOutput)
        XCTAssertTrue(pruned.output.hasPrefix("Freed 2 counters"), pruned.output)
        let after = try tpmStatus(sandbox)
        XCTAssertEqual(after?["pin_indices_unnamed"] as? Int, 0)
        XCTAssertEqual(after?["pin_indices"] as? Int, 2, "the PIN's and the decoys'")
        XCTAssertEqual(try sandbox.pam(user: user, responses: ["7531"]).code, PAMCode.success)
    }

    /// The issue's attacker on a hardened chip whose platform hierarchy the firmware closed:
    /// root without the TPM recovery secret. After every wrong guess they put back the whole
    /// state directory, run `secureroom reset`, and try to clear the chip, reset its
    /// dictionary-attack counter, remove the PIN's index and define their own in its place:
    /// the chip refuses all of it, and after `deny` (3) wrong PINs it refuses the right one.
    /// Another user's PIN works throughout; a user's own typos, each run ended by the right
    /// PIN, never add up; with the secret, the administrator sets the counter back.
    func testAfterHardeningRootWithoutTheSecretGainsNoGuess() throws {
        let sandbox = try boundSandbox(extra: "deny = 3\nschedule =\n")
        try sandbox.setPIN("bin", pin: "2468")
        let harden = try sandbox.cli(["tpm", "harden"])
        XCTAssertEqual(harden.status, 0, harden.errorOutput)
        let secret = try XCTUnwrap(harden.output.split(separator: "\n").first { $0.hasPrefix("hex:") })
        let closed = try tpm.tool(["tpm2_hierarchycontrol", "-C", "p", "phEnable", "clear"])
        XCTAssertEqual(closed.status, 0, "as firmware does at boot: " + closed.errorOutput)
        XCTAssertEqual(try tpmStatus(sandbox)?["platform_open"] as? Bool, false)

        for _ in 0..<3 {
            for guess in ["1111", "2222"] {
                XCTAssertEqual(try sandbox.pam(user: user, responses: [guess]).code, PAMCode.authError)
            }
            XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success, "typos forgiven")
        }

        let index = try XCTUnwrap(
            try credential(sandbox).split(separator: "\n").first { $0.hasPrefix("tpm-index: ") }?.dropFirst(11))
        let handle = "0x" + index
        let saved = sandbox.root + "/saved-state"
        try FileManager.default.copyItem(atPath: sandbox.state, toPath: saved)
        let attacks = [
            ["tpm2_nvundefine", handle, "-C", "o"],
            ["tpm2_nvundefine", handle, "-C", "p"],
            ["tpm2_nvdefine", handle, "-C", "o", "-s", "8", "-a", "ownerread|ownerwrite|no_da", "-p", "1234"],
            ["tpm2_clear", "-c", "p"],
            ["tpm2_dictionarylockout", "--clear-lockout"],
            ["tpm2_clear", "-c", "l"],
        ]
        for guess in ["1111", "2222", "3333"] {
            XCTAssertEqual(try sandbox.pam(user: user, responses: [guess]).code, PAMCode.authError, guess)
            try FileManager.default.removeItem(atPath: sandbox.state)
            try FileManager.default.copyItem(atPath: saved, toPath: sandbox.state)
            XCTAssertEqual(try sandbox.cli(["reset", user]).status, 0)
            for attack in attacks {
                let result = try tpm.tool(attack)
                XCTAssertNotEqual(result.status, 0, "\(attack.joined(separator: " ")) succeeded without the secret")
            }
            XCTAssertEqual(try sandbox.pam(user: "bin", responses: ["2468"]).code, PAMCode.success, "another user")
        }
        let refused = try sandbox.pam(user: user, responses: [pin])
        XCTAssertEqual(refused.code, PAMCode.authInfoUnavailable)
        XCTAssertEqual(refused.prompts, [])
        XCTAssertEqual(try chipFailures(sandbox), 3)
        let reset = try sandbox.cli(["reset", user])
        XCTAssertTrue(reset.errorOutput.contains("spent on the TPM"), reset.errorOutput)

        let wrongSecret = try sandbox.cli(
            ["reset", user, "--tpm-secret"], input: "hex:" + String(repeating: "ab", count: 32) + "\n")
        XCTAssertEqual(wrongSecret.status, 1)
        XCTAssertTrue(wrongSecret.errorOutput.contains("refused the TPM recovery secret"), wrongSecret.errorOutput)
        let restored = try sandbox.cli(["reset", user, "--tpm-secret"], input: secret + "\n")
        XCTAssertEqual(restored.status, 0, restored.errorOutput)
        XCTAssertEqual(try chipFailures(sandbox), 0)
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success)
    }

    /// `nopin=fail` with bound PINs: a name without a PIN does the chip work of a bound
    /// PIN's wrong guess (on the decoys' own index, made with the first bound PIN), so the
    /// transcripts match, also when the chip is gone, and the chip's counter moves for none.
    func testWithoutAPINTheAnswersAreTheSameAsABoundPINs() throws {
        let sandbox = try boundSandbox(extra: "nopin = fail\nschedule =\n")
        XCTAssertTrue(
            try String(contentsOfFile: "\(sandbox.state)/users/.decoy.tpm", encoding: .utf8)
                .hasPrefix("SECUREROOM-DECOY-TPM/2\n"))
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
        XCTAssertEqual(try chipFailures(sandbox), 3)
        XCTAssertEqual(try tpm.lockoutCounter(), 0)
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
        let sandbox = try Sandbox(configuration: tpm.requiredConfiguration)
        let result = try sandbox.cli(["set", user, "--stdin", "--allow-weak"], input: pin + "\n")
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.errorOutput.contains("the TPM does not answer"), result.errorOutput)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(sandbox.state)/users/\(user).credential"))
    }
}
