// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// The vault end to end: the real libpam, the real kernel keyring, the setuid helper and
/// the secureroom-vault tool, run as uid 1 (daemon) inside a private mount namespace.
/// Root-side logins are driven by the pam_start_confdir driver.
final class VaultTests: XCTestCase {
    let uid: UInt32 = 1
    let user = "daemon"
    let pin = "4739"
    private var sandbox: Sandbox!
    private var stage: UnprivilegedStage!

    /// A sandbox where daemon has a PIN, with the vault's PAM service installed in the
    /// namespace's /etc/pam.d, sessions counted under the sandbox, and the keyring clean.
    private func prepare(extraConfiguration: String = "") throws {
        sandbox = try Sandbox()
        let base = try String(contentsOfFile: sandbox.config, encoding: .utf8)
        try sandbox.write(sandbox.config, base + "sessions = \(sandbox.root)/run\n" + extraConfiguration, mode: 0o600)
        try sandbox.setPIN(user, pin: pin)
        stage = try UnprivilegedStage(sandbox: sandbox)
        let shipped = try String(contentsOfFile: Artifacts.root + "/pam/secureroom-vault", encoding: .utf8)
        try stage.systemService(
            "secureroom-vault",
            shipped.split(separator: "\n").map {
                $0.replacingOccurrences(of: "pam_secureroom.so", with: "MODULE")
            })
        // A login stack as root runs it: the PIN, then the session.
        try sandbox.service(
            "login",
            [
                "auth required MODULE STATE nodelay", "session required MODULE STATE",
                "password required MODULE STATE nodelay",
            ])
        _ = try stage.vault(as: uid, ["lock"])
    }

    /// Locks the vault, then lets the sandbox go (XCTest keeps test-case instances to the
    /// end of the run, so its directory would otherwise stay in /tmp).
    override func tearDownWithError() throws {
        if let stage { _ = try stage.vault(as: uid, ["lock"]) }
        stage = nil
        sandbox = nil
    }

    /// `init` as the user: returns the recovery key it printed once.
    @discardableResult
    private func setUpVault() throws -> String {
        let result = try stage.vault(as: uid, ["init", "--stdin"], input: pin + "\n")
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let key = try XCTUnwrap(result.output.range(of: #"[0-9]{5}(-[0-9]{5}){7}"#, options: .regularExpression))
        return String(result.output[key])
    }

    /// A setuid-root copy of the driver, as su is: real uid the caller, effective uid 0.
    private func makeSetuidDriver() throws -> String {
        let setuidDriver = stage.bin + "/secureroom-pam-driver-setuid"
        try FileManager.default.copyItem(atPath: stage.bin + "/secureroom-pam-driver", toPath: setuidDriver)
        XCTAssertEqual(chmod(setuidDriver, 0o4755), 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: sandbox.pamDirectory)
        return setuidDriver
    }

    private func vault(_ arguments: [String], input: String = "") throws -> ProcessResult {
        try stage.vault(as: uid, arguments, input: input)
    }

    private func assertLocked(_ file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try vault(["get", "github"])
        XCTAssertEqual(result.status, 3, result.errorOutput, file: file, line: line)
        XCTAssertTrue(
            result.errorOutput.contains("locked; run 'secureroom-vault unlock'"), result.errorOutput, file: file,
            line: line)
        XCTAssertEqual(result.output, "", file: file, line: line)
    }

    private func assertSecret(_ expected: String, _ file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try vault(["get", "github"])
        XCTAssertEqual(result.status, 0, result.errorOutput, file: file, line: line)
        XCTAssertEqual(result.output, expected, file: file, line: line)
    }

    func testInitUnlockGetLockAndUnlockAgain() throws {
        try prepare()
        let recovery = try setUpVault()
        XCTAssertEqual(recovery.count, 47)
        XCTAssertEqual(try vault(["add", "github"], input: "hunter2").status, 0)
        try assertSecret("hunter2")
        let status = try vault(["status"])
        XCTAssertEqual(status.status, 0)
        XCTAssertTrue(status.output.contains("unlocked, "), status.output)
        XCTAssertTrue(status.output.contains("(1 secret)"), status.output)

        XCTAssertEqual(try vault(["lock"]).output, "Vault locked.\n")
        try assertLocked()
        XCTAssertEqual(try vault(["status"]).status, 3)

        let wrong = try vault(["unlock", "--stdin"], input: "9261\n")
        XCTAssertEqual(wrong.status, 2, wrong.errorOutput)
        try assertLocked()
        // No terminal and no --stdin: why no PIN came, and how to give one; nothing counted.
        let noTerminal = try vault(["unlock"])
        XCTAssertEqual(noTerminal.status, 1)
        XCTAssertEqual(
            noTerminal.errorOutput,
            "secureroom-vault: no PIN on standard input (standard input is not a terminal: give the PIN on it with "
                + "--stdin, or ask with --pinentry PROGRAM)\n")
        XCTAssertEqual(try sandbox.status(user)["failures"] as? Int, 1, "only the wrong PIN counted")
        let right = try vault(["unlock", "--stdin"], input: pin + "\n")
        XCTAssertEqual(right.status, 0, right.errorOutput)
        XCTAssertEqual(right.output, "Vault unlocked for 15 min.\n")
        try assertSecret("hunter2")
        // Another user's keyring holds nothing of daemon's.
        let other = try stage.vault(as: 2, ["get", "github"])
        XCTAssertEqual(other.status, 3, other.errorOutput)
        XCTAssertTrue(stage.logLines().contains { $0.contains("vault unlocked for daemon") })
    }

    /// The vault through a TPM-bound PIN, as the user (through the helper): the vault key
    /// is wrapped under the chip-bound master, a wrong PIN is a failure the chip counts on
    /// the PIN's own counter (not the chip's), and the right one opens the vault.
    func testTheVaultOpensThroughATPMBoundPIN() throws {
        setenv("TSS2_LOG", "all+none", 1)
        let tpm = try SoftwareTPM()
        defer { tpm.stop() }
        try prepare(extraConfiguration: "tpm = required\ntpm_tcti = \(tpm.tcti)\n")
        let record = try String(contentsOfFile: "\(sandbox.state)/users/\(user).credential", encoding: .utf8)
        XCTAssertTrue(record.hasPrefix("SECUREROOM-CREDENTIAL/3\n"), record)
        try setUpVault()
        XCTAssertEqual(try vault(["add", "github"], input: "bound").status, 0)
        XCTAssertEqual(try vault(["lock"]).status, 0)
        let wrong = try vault(["unlock", "--stdin"], input: "9261\n")
        XCTAssertEqual(wrong.status, 2, wrong.errorOutput)
        XCTAssertEqual(try sandbox.status(user)["tpm_failures"] as? Int, 1)
        XCTAssertEqual(try tpm.lockoutCounter(), 0)
        try assertLocked()
        let right = try vault(["unlock", "--stdin"], input: pin + "\n")
        XCTAssertEqual(right.status, 0, right.errorOutput)
        try assertSecret("bound")
        tpm.stop()
        XCTAssertEqual(try vault(["lock"]).status, 0)
        let gone = try vault(["unlock", "--stdin"], input: pin + "\n")
        XCTAssertNotEqual(gone.status, 0)
        XCTAssertTrue(gone.errorOutput.contains("security chip does not answer"), gone.errorOutput)
    }

    /// A root-side login held open like su's (`HeldLogin`): the driver's `wait` operation.
    private func heldLogin(_ operations: [String], responses: [String] = [], environment: String = "") throws
        -> HeldLogin
    {
        let arguments = sandbox.driverArguments("login", user: user, options: [], operations: operations)
        let input = responses.map { "\($0)\\n" }.joined()
        let command = "printf '\(input)' | \(environment) \(Artifacts.driver) " + arguments.joined(separator: " ")
        return try HeldLogin(
            output: sandbox.root + "/held-\(UUID().uuidString)",
            launch: { line in
                try runProgram("/bin/sh", ["-c", line])
            }, command: command)
    }

    func testLoginUnlocksWithOneArgon2AndTheLastSessionToCloseLocks() throws {
        try prepare()
        try setUpVault()
        XCTAssertEqual(try vault(["add", "github"], input: "s3cret").status, 0)
        XCTAssertEqual(try vault(["lock"]).status, 0)

        let counter = try sandbox.argon2CounterLibrary()
        let counts = sandbox.root + "/argon2-calls"
        XCTAssertTrue(FileManager.default.createFile(atPath: counts, contents: nil))
        let first = try heldLogin(
            ["auth", "open", "wait", "close"], responses: [pin],
            environment: "LD_PRELOAD=\(counter) ARGON2_COUNTER_FILE=\(counts)")
        XCTAssertTrue(first.transcript.contains("result auth: 0 Success\nresult open: 0 Success\n"), first.transcript)
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: counts)).count, 1, "one argon2 run verifies and unlocks")
        try assertSecret("s3cret")

        // A second session (no PIN asked: the key is there), then the two close.
        let second = try heldLogin(["open", "wait", "close"])
        XCTAssertFalse(second.transcript.contains("info:"), second.transcript)
        try first.release()
        XCTAssertTrue(first.transcript.contains("result close: 0 Success"), first.transcript)
        try assertSecret("s3cret")
        try second.release()
        try assertLocked()

        // A session without the PIN (sshd with a key): nothing unlocked, the user is told how.
        let keyOnly = try heldLogin(["open", "wait", "close"])
        XCTAssertTrue(
            keyOnly.transcript.contains(
                "info: Your SecureRoom vault is locked; run 'secureroom-vault unlock' to open it."),
            keyOnly.transcript)
        try assertLocked()
        try keyOnly.release()
    }

    /// A session counts while its process runs, not until someone calls close: a su
    /// killed with SIGKILL never runs close_session, and the vault locks when the user's
    /// tool next looks (and the session list forgets it at the next open, close or PIN
    /// check). Another live session keeps the vault open.
    func testAKilledSessionLocksTheVaultOnceNoSessionIsLeft() throws {
        try prepare()
        try setUpVault()
        XCTAssertEqual(try vault(["add", "github"], input: "s3cret").status, 0)
        XCTAssertEqual(try vault(["lock"]).status, 0)
        let killed = try heldLogin(["auth", "setcred", "open", "wait", "close"], responses: [pin])
        let other = try heldLogin(["open", "wait", "close"])
        try killed.kill()
        try assertSecret("s3cret")  // the other session is alive
        try other.kill()
        try assertLocked()  // the vault tool noticed: no live session is left
        let list = sandbox.root + "/run/daemon.sessions"
        XCTAssertTrue(FileManager.default.fileExists(atPath: list), "only root forgets sessions")
        // The next PIN check (as root) forgets both dead sessions.
        XCTAssertEqual(try sandbox.pam("login", user: user, responses: [pin]).code, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: list))
        // And a key a session put there, with no session left, is gone after the next PIN
        // check, which forgets the dead session.
        let again = try heldLogin(["auth", "setcred", "open", "wait", "close"], responses: [pin])
        try again.kill()
        XCTAssertEqual(try sandbox.pam("login", user: user, responses: ["1470"]).code, 7)
        XCTAssertFalse(FileManager.default.fileExists(atPath: list))
        try assertLocked()
    }

    /// Regression (third red team, F6): a vault opened with `secureroom-vault unlock` (no
    /// root: through the helper) while a login of the user is counted follows that login,
    /// like the login's own key: killing it (SIGKILL, no close_session) locks the vault.
    /// Opened with no login counted, only the timeout locks it, and `status` says so.
    func testAVaultUnlockedWithoutRootFollowsTheSessionsCountedThen() throws {
        try prepare()
        try setUpVault()
        XCTAssertEqual(try vault(["add", "github"], input: "s3cret").status, 0)
        let untied = try vault(["status"])
        XCTAssertTrue(untied.output.contains("only the timeout locks it"), untied.output)
        XCTAssertEqual(try vault(["lock"]).status, 0)

        let login = try heldLogin(["open", "wait", "close"])  // counted, without the PIN
        XCTAssertEqual(try vault(["unlock", "--stdin"], input: pin + "\n").status, 0)
        let tied = try vault(["status", "--json"])
        XCTAssertTrue(tied.output.contains("\"session_bound\" : true"), tied.output)
        try assertSecret("s3cret")
        try login.kill()
        try assertLocked()
    }

    /// Regression (3113aa5): in a setuid-root host such as su (real uid = the invoking
    /// user, effective and saved uid 0), storing the key in the target user's keyring
    /// switches ids and must switch back to exactly the ones the host had.
    func testSetuidHostGetsItsIdsBackAfterTheKeyIsStored() throws {
        try prepare()
        try setUpVault()
        XCTAssertEqual(try vault(["add", "github"], input: "s3cret").status, 0)
        XCTAssertEqual(try vault(["lock"]).status, 0)
        let setuidDriver = try makeSetuidDriver()

        // uid 2 runs the setuid-root host to log in as daemon, as `su daemon` would.
        let held = try heldSetuidLogin(
            setuidDriver, ["auth", "setcred", "open", "wait", "close"], options: "--report-ids")
        try assertSecret("s3cret")
        try held.release()
        let results = held.transcript.split(separator: "\n").filter {
            $0.hasPrefix("result ") && !$0.hasPrefix("result wait")
        }
        XCTAssertEqual(
            results,
            [
                "result auth: 0 Success", "result setcred: 0 Success", "result open: 0 Success",
                "result close: 0 Success",
            ], held.transcript)
        let ids = held.transcript.split(separator: "\n").filter { $0.hasPrefix("ids: ") }
        XCTAssertEqual(ids, ["ids: 2 0 0 / 2 2 2", "ids: 2 0 0 / 2 2 2"], "ids before pam_start and after pam_end")
        try assertLocked()
    }

    /// A login as uid 2 through the setuid driver, held open; `wrapper` runs it (keyctl session).
    private func heldSetuidLogin(
        _ driver: String, _ operations: [String], options: String = "",
        wrapper: String = ""
    ) throws -> HeldLogin {
        let arguments = sandbox.driverArguments("login", user: user, options: [], operations: operations)
        let output = "/tmp/secureroom-held-\(UUID().uuidString)"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: output) }
        let command = "printf '\(pin)\\n' | \(wrapper) \(driver) \(options) " + arguments.joined(separator: " ")
        let held = try HeldLogin(
            output: output, launch: { line in try self.stage.run(as: 2, "/bin/sh", ["-c", line]) },
            command: command)
        return held
    }

    /// su from a shell with its own session keyring (`keyctl session`, as `keyctl
    /// new_session` makes), which does not link the target's user keyring: the key still
    /// gets its permissions and timeout, and the last close removes it. Regression: the
    /// key was added to @u without possession, keyctl_setperm failed with EACCES, and the
    /// key stayed with no timeout after the session closed.
    func testSuFromAShellWithItsOwnSessionKeyringStillLocks() throws {
        try prepare(extraConfiguration: "vault_timeout = 5s\n")
        try setUpVault()
        XCTAssertEqual(try vault(["add", "github"], input: "s3cret").status, 0)
        XCTAssertEqual(try vault(["lock"]).status, 0)
        let setuidDriver = try makeSetuidDriver()
        let keyctl = try XCTUnwrap(
            ["/usr/bin/keyctl", "/bin/keyctl"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "keyctl (Debian: keyutils) is missing")
        let login = try heldSetuidLogin(
            setuidDriver, ["auth", "setcred", "open", "wait", "close"], wrapper: "\(keyctl) session -")
        XCTAssertTrue(
            login.transcript.contains("result auth: 0 Success\nresult setcred: 0 Success\nresult open: 0 Success\n"),
            login.transcript)
        try assertSecret("s3cret")
        try login.release()
        XCTAssertTrue(login.transcript.contains("result close: 0 Success"), login.transcript)
        try assertLocked()
        // And the timeout, while the session is still open.
        let held = try heldSetuidLogin(
            setuidDriver, ["auth", "setcred", "open", "wait", "close"], wrapper: "\(keyctl) session -")
        try assertSecret("s3cret")
        Thread.sleep(forTimeInterval: 6.5)
        try assertLocked()
        try held.release()
    }

    func testTimeoutLocks() throws {
        try prepare(extraConfiguration: "vault_timeout = 4s\n")
        try setUpVault()
        XCTAssertEqual(try vault(["add", "github"], input: "v").status, 0)
        try assertSecret("v")
        Thread.sleep(forTimeInterval: 5.5)
        try assertLocked()
    }

    func testPINChangeKeepsEverySecret() throws {
        try prepare()
        try setUpVault()
        for index in 0..<20 { XCTAssertEqual(try vault(["add", "s\(index)"], input: "value \(index)").status, 0) }
        XCTAssertEqual(try vault(["add", "github"], input: "before").status, 0)

        // The user's own change, through the helper.
        let change = try stage.cli(as: uid, ["change", "--stdin"], input: "\(pin)\n9261\n")
        XCTAssertEqual(change.status, 0, change.errorOutput)
        XCTAssertEqual(try vault(["lock"]).status, 0)
        XCTAssertEqual(try vault(["unlock", "--stdin"], input: pin + "\n").status, 2, "the old PIN no longer opens it")
        XCTAssertEqual(try vault(["unlock", "--stdin"], input: "9261\n").status, 0)
        try assertSecret("before")

        // pam_chauthtok as root (passwd-style), then a login with the newest PIN.
        let passwd = try sandbox.pam(
            "login", user: user, responses: ["9261", "5182", "5182"], operations: ["chauthtok"])
        XCTAssertEqual(passwd.code, 0, passwd.process.output)
        XCTAssertEqual(try vault(["lock"]).status, 0)
        XCTAssertEqual(try vault(["unlock", "--stdin"], input: "9261\n").status, 2)
        XCTAssertEqual(try vault(["unlock", "--stdin"], input: "5182\n").status, 0)
        for index in 0..<20 { XCTAssertEqual(try vault(["get", "s\(index)"]).output, "value \(index)") }
    }

    func testRecoveryKeyKeepsTheVaultThroughAnAdministratorsNewPIN() throws {
        try prepare()
        let recovery = try setUpVault()
        XCTAssertEqual(try vault(["add", "github"], input: "kept").status, 0)

        let refused = try sandbox.cli(["set", user, "--stdin"], input: "4817\n")
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(
            refused.errorOutput.contains("has a vault: a new PIN without the recovery key makes it unreadable"),
            refused.errorOutput)

        let wrongKey = String(repeating: "1", count: 40)
        let wrong = try sandbox.cli(["set", user, "--recovery-key", "--stdin"], input: "\(wrongKey)\n4817\n")
        XCTAssertEqual(wrong.status, 1)
        XCTAssertTrue(
            wrong.errorOutput.contains("the recovery key does not open the vault of daemon"), wrong.errorOutput)
        let malformed = try sandbox.cli(["set", user, "--recovery-key", "--stdin"], input: "12345\n4817\n")
        XCTAssertTrue(malformed.errorOutput.contains("a recovery key is 40 digits"), malformed.errorOutput)

        let restored = try sandbox.cli(["set", user, "--recovery-key", "--stdin"], input: "\(recovery)\n4817\n")
        XCTAssertEqual(restored.status, 0, restored.errorOutput)
        XCTAssertEqual(try vault(["lock"]).status, 0)
        XCTAssertEqual(try vault(["unlock", "--stdin"], input: "4817\n").status, 0)
        try assertSecret("kept")

        // --force: the new PIN does not open the vault; the recovery key still can.
        XCTAssertEqual(try sandbox.cli(["set", user, "--force", "--stdin"], input: "5182\n").status, 0)
        XCTAssertEqual(try sandbox.status(user)["vault"] as? String, "recovery-only")
        XCTAssertEqual(try vault(["lock"]).status, 0)
        let noKey = try vault(["unlock", "--stdin"], input: "5182\n")
        XCTAssertEqual(noKey.status, 1)
        XCTAssertTrue(noKey.errorOutput.contains("Your vault does not open with your current PIN"), noKey.errorOutput)
        XCTAssertEqual(
            try sandbox.cli(["set", user, "--recovery-key", "--stdin"], input: "\(recovery)\n5182\n").status, 0)
        XCTAssertEqual(try sandbox.status(user)["vault"] as? String, "pin")
        XCTAssertEqual(try vault(["unlock", "--stdin"], input: "5182\n").status, 0)
        try assertSecret("kept")
    }

    /// Each state in which a PIN cannot open the vault gets its own words from `status` and
    /// `unlock` (which then asks for no PIN and counts nothing), and the command each hint
    /// names is run here and works.
    func testEveryClosedVaultSaysWhatHappenedAndWhatToRunInstead() throws {
        try prepare()
        let restore = "'secureroom-vault recover' and your recovery key make it open with your PIN again"
        func expect(_ explanation: String, _ file: StaticString = #filePath, line: UInt = #line) throws {
            let unlock = try vault(["unlock", "--stdin"], input: pin + "\n")
            XCTAssertEqual(unlock.status, 1, file: file, line: line)
            XCTAssertEqual(unlock.errorOutput, "secureroom-vault: \(explanation)\n", file: file, line: line)
            let status = try vault(["status"])
            XCTAssertEqual(status.status, 3, file: file, line: line)
            XCTAssertEqual(
                status.output.split(separator: "\n").first.map(String.init), "Vault of daemon: closed. \(explanation)",
                file: file, line: line)
            XCTAssertEqual(
                try sandbox.status(user)["failures"] as? Int ?? 0, 0, "no PIN asked, nothing counted", file: file,
                line: line)
        }
        // No vault yet: the hinted init works.
        try expect("You have no vault yet: create it with 'secureroom-vault init'.")
        let recovery = try setUpVault()
        XCTAssertEqual(try vault(["add", "github"], input: "kept").status, 0)
        XCTAssertEqual(try vault(["lock"]).status, 0)
        let locked = try vault(["status"])
        XCTAssertEqual(locked.status, 3)
        XCTAssertTrue(
            locked.output.hasPrefix(
                "Vault of daemon: locked (it locks itself vault_timeout after it was unlocked, "
                    + "and when your last session closes). Run 'secureroom-vault unlock' to open it.\n"),
            locked.output)

        // A PIN set without the recovery key: the hinted recover brings it back, the user's
        // own command. A wrong recovery key is refused before the PIN is asked.
        XCTAssertEqual(try sandbox.cli(["set", user, "--force", "--stdin"], input: "5182\n").status, 0)
        try expect(
            "Your vault does not open with your current PIN (it was set anew without your recovery key, by "
                + "'secureroom enrol --replace' or an administrator); \(restore)."
        )
        let wrongKey = try vault(["recover", "--stdin"], input: String(repeating: "1", count: 40) + "\n5182\n")
        XCTAssertEqual(wrongKey.status, 1)
        XCTAssertTrue(
            wrongKey.errorOutput.contains("the recovery key does not open the vault of daemon"), wrongKey.errorOutput)
        XCTAssertEqual(try sandbox.status(user)["failures"] as? Int, 0, "no PIN checked")
        let wrongPIN = try vault(["recover", "--stdin"], input: "\(recovery)\n9999\n")
        XCTAssertEqual(wrongPIN.status, 2, wrongPIN.errorOutput)
        XCTAssertEqual(try sandbox.status(user)["failures"] as? Int, 1, "a wrong PIN counts as anywhere")
        let recovered = try vault(["recover", "--stdin"], input: "\(recovery)\n5182\n")
        XCTAssertEqual(recovered.status, 0, recovered.errorOutput)
        XCTAssertTrue(recovered.output.hasPrefix("Vault recovered: it opens with your PIN again"), recovered.output)
        try assertSecret("kept")
        XCTAssertEqual(try sandbox.status(user)["vault"] as? String, "pin")
        let again = try vault(["recover", "--stdin"], input: "\(recovery)\n5182\n")
        XCTAssertEqual(again.status, 0)
        XCTAssertTrue(again.output.contains("already opens with your PIN"), again.output)
        XCTAssertEqual(try vault(["lock"]).status, 0)
        XCTAssertEqual(
            try vault(["unlock", "--stdin"], input: "5182\n").status, 0, "the recovered key opens with the PIN")
        XCTAssertEqual(try vault(["lock"]).status, 0)

        // The PIN removed: reset's own hint names a command that exists, and it works.
        let refused = try sandbox.cli(["reset", user, "--remove-pin"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertEqual(
            refused.errorOutput,
            "secureroom: daemon has a vault: without the PIN only their recovery key opens it "
                + "('secureroom set daemon --recovery-key' gives a new PIN that does); add --force to remove the PIN\n")
        XCTAssertEqual(try sandbox.cli(["reset", user, "--remove-pin", "--force"]).status, 0)
        try expect(
            "Your PIN was removed by an administrator. Your vault's key is kept: create a PIN with 'secureroom enrol "
                + "--replace', then \(restore)."
        )
        let noPIN = try vault(["recover", "--stdin"], input: "\(recovery)\n\(pin)\n")
        XCTAssertEqual(noPIN.status, 1)
        XCTAssertTrue(noPIN.errorOutput.contains("create one with 'secureroom enrol --replace'"), noPIN.errorOutput)
        // (The administrator's way, which enrol --replace stands for here: a new PIN.)
        XCTAssertEqual(try sandbox.cli(["set", user, "--force", "--stdin"], input: "\(pin)\n").status, 0)
        XCTAssertEqual(try vault(["recover", "--stdin"], input: "\(recovery)\n\(pin)\n").status, 0)
        XCTAssertEqual(try vault(["lock"]).status, 0)
        XCTAssertEqual(try vault(["unlock", "--stdin"], input: pin + "\n").status, 0)
        try assertSecret("kept")
        XCTAssertEqual(try vault(["lock"]).status, 0)

        // No PIN and no vault at all.
        XCTAssertEqual(try sandbox.cli(["reset", user, "--remove-pin", "--force"]).status, 0)
        try FileManager.default.removeItem(atPath: sandbox.state + "/users/daemon.recovery")
        try expect(
            "You have no PIN, so there is no vault to open. Create a PIN with 'secureroom enrol', "
                + "then a vault with 'secureroom-vault init'.")

        // SecureRoom not set up: the hinted init works.
        let conf = sandbox.root + "/etc-security/secureroom.conf"
        let missing = sandbox.root + "/no-state"
        try sandbox.write(conf, try String(contentsOfFile: conf, encoding: .utf8) + "dir = \(missing)\n", mode: 0o644)
        let unlock = try vault(["unlock", "--stdin"], input: pin + "\n")
        XCTAssertEqual(
            unlock.errorOutput,
            "secureroom-vault: SecureRoom is not set up on this computer: "
                + "an administrator runs 'sudo secureroom init'.\n")
        XCTAssertEqual(try runProgram(Artifacts.cli, ["init", "--config", conf]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: missing + "/pepper"))
    }

    func testWipeAfterErasesTheVaultKeyAndOnlyTheRecoveryKeyBringsItBack() throws {
        try prepare(extraConfiguration: "wipe_after = 3\n")
        let recovery = try setUpVault()
        XCTAssertEqual(try vault(["add", "github"], input: "erased?").status, 0)
        XCTAssertEqual(try vault(["lock"]).status, 0)
        for wrong in ["1470", "3690", "7777"] {
            XCTAssertEqual(try vault(["unlock", "--stdin"], input: wrong + "\n").status, 2)
        }
        XCTAssertEqual(try sandbox.status(user)["vault"] as? String, "recovery-only")
        XCTAssertTrue(
            stage.logLines().contains {
                $0.hasPrefix("<81>")  // LOG_AUTHPRIV | LOG_ALERT
                    && $0.contains("vault key of daemon (uid 1) erased after 3 consecutive failed PIN attempts")
            },
            stage.logLines().joined(separator: "\n"))
        let credential = try String(contentsOfFile: sandbox.state + "/users/daemon.credential", encoding: .utf8)
        XCTAssertFalse(credential.contains("vault-key"))

        let erased = try vault(["unlock", "--stdin"], input: pin + "\n")
        XCTAssertEqual(erased.status, 1, "the right PIN no longer opens the vault")
        XCTAssertTrue(
            erased.errorOutput.hasPrefix("secureroom-vault: Your vault key was erased at "), erased.errorOutput)
        XCTAssertTrue(
            erased.errorOutput.contains(
                " after 3 failed PIN attempts (wipe_after); your secrets are kept and 'secureroom-vault recover' and "
                    + "your recovery key"),
            erased.errorOutput)
        try assertLocked()
        // The next login with the PIN (as root) says what happened, once.
        let told = try sandbox.pam("login", user: user, responses: [pin])
        XCTAssertEqual(told.code, 0, told.process.output)
        // (unlock asked for no PIN once the key was gone, so the failures are news too)
        XCTAssertEqual(told.errors.first, "3 failed PIN attempts since your last login.", told.process.output)
        XCTAssertEqual(told.errors.count, 2, told.process.output)
        XCTAssertTrue(told.errors.last?.hasPrefix("Your SecureRoom vault key was erased at ") == true, "\(told.errors)")
        XCTAssertTrue(told.errors.last?.contains(" after 3 failed PIN attempts. ") == true, "\(told.errors)")
        XCTAssertTrue(
            told.errors.last?.hasSuffix(
                "'secureroom-vault recover' and your recovery key make the vault open with your PIN again.") == true)
        XCTAssertEqual(try sandbox.pam("login", user: user, responses: [pin]).errors, [], "told once")
        // The user's own way back, as the notice says.
        let recovered = try vault(["recover", "--stdin"], input: "\(recovery)\n\(pin)\n")
        XCTAssertEqual(recovered.status, 0, recovered.errorOutput)
        try assertSecret("erased?")
        XCTAssertEqual(try vault(["lock"]).status, 0)
        XCTAssertEqual(try vault(["unlock", "--stdin"], input: pin + "\n").status, 0)
    }

    func testTwoProcessesAddingFiveHundredEachLoseNothing() throws {
        try prepare()
        try setUpVault()
        let tool = stage.bin + "/secureroom-vault"
        let script = """
            add() { i=0; while [ $i -lt 500 ]; do printf 'v%s' $i | "\(tool)" add "$1-$i" || exit 1; i=$((i+1)); done; }
            add first & one=$!
            add second & two=$!
            wait $one && wait $two
            """
        let result = try stage.run(
            as: uid, "/bin/sh", ["-c", script],
            environment: ["XDG_DATA_HOME": stage.scratch + "/data-\(uid)", "HOME": stage.scratch])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let list = try vault(["list", "--json"])
        let entries = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [[String: Any]])
        XCTAssertEqual(entries.count, 1000)
        XCTAssertEqual(try vault(["get", "second-499"]).output, "v499")
    }

    func testImportStoresAllOrNothing() throws {
        try prepare()
        try setUpVault()
        let entries = (1...300).map { "{\"title\":\"site-\($0)\",\"value\":\"v\($0) \\u00e9\\n\"}" }
        let imported = try vault(["import"], input: "[" + entries.joined(separator: ",") + "]")
        XCTAssertEqual(imported.status, 0, imported.errorOutput)
        XCTAssertEqual(
            imported.errorOutput, "secureroom-vault: imported 300 secrets, skipped 0 already in the vault, failed 0\n")
        XCTAssertEqual(try vault(["get", "site-150"]).output, "v150 \u{e9}\n")
        // One title already there, one repeated, one invalid, or bad JSON: nothing is stored.
        for (input, message) in [
            (#"[{"title":"new-1","value":"a"},{"title":"site-7","value":"b"}]"#, "already"),
            (#"[{"title":"new-1","value":"a"},{"title":"new-1","value":"b"}]"#, "given twice"),
            (#"[{"title":"new-1","value":"a"},{"title":"","value":"b"}]"#, "1 to 1024 bytes"),
            (#"{"title":"new-1"}"#, "not a JSON array"),
        ] {
            let refused = try vault(["import"], input: input)
            XCTAssertEqual(refused.status, 1, input)
            XCTAssertTrue(refused.errorOutput.contains(message), refused.errorOutput)
            XCTAssertEqual(try vault(["get", "new-1"]).status, 4, input)
        }
        XCTAssertEqual(try vault(["get", "site-7"]).output, "v7 \u{e9}\n")
        // --replace replaces what is stored, but a title given twice is still refused
        // (regression: the second value silently won).
        let twice = try vault(
            ["import", "--replace"], input: #"[{"title":"site-7","value":"a"},{"title":"site-7","value":"b"}]"#)
        XCTAssertEqual(twice.status, 1, twice.errorOutput)
        XCTAssertTrue(twice.errorOutput.contains("given twice"), twice.errorOutput)
        XCTAssertEqual(try vault(["get", "site-7"]).output, "v7 \u{e9}\n")
        let replaced = try vault(["import", "--replace"], input: #"[{"title":"site-7","value":"seven"}]"#)
        XCTAssertEqual(replaced.status, 0, replaced.errorOutput)
        XCTAssertEqual(try vault(["get", "site-7"]).output, "seven")
        XCTAssertEqual(try vault(["status", "--json"]).output.contains("300"), true)
    }

    /// Regression (first hour of a new user): an import dropped labels and attributes, so a
    /// Secret Service client's lookup no longer found the secret, and nothing exported. Now
    /// export writes title, value (base64 when not UTF-8), label, content type and
    /// attributes; import takes them back, a round trip is exact, an unknown key is refused.
    func testExportAndImportKeepLabelsAttributesAndBytes() throws {
        try prepare()
        try setUpVault()
        let input = """
            [{"title":"git","value":"hunter2","label":"Git token","content_type":"text/plain",
              "attributes":{"service":"github.com","user":"octocat"}},
             {"title":"raw","value_base64":"AP8BAg=="},
             {"title":"plain","value":"pl\\u00e9in"}]
            """
        let imported = try vault(["import"], input: input)
        XCTAssertEqual(imported.status, 0, imported.errorOutput)
        XCTAssertEqual(
            imported.errorOutput, "secureroom-vault: imported 3 secrets, skipped 0 already in the vault, failed 0\n")
        let exported = try vault(["export"])
        XCTAssertEqual(exported.status, 0, exported.errorOutput)
        let array = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(exported.output.utf8)) as? [[String: Any]], exported.output)
        XCTAssertEqual(array.compactMap { $0["title"] as? String }, ["git", "plain", "raw"])
        XCTAssertEqual(array[0]["label"] as? String, "Git token")
        XCTAssertEqual(array[0]["attributes"] as? [String: String], ["service": "github.com", "user": "octocat"])
        XCTAssertEqual(array[1]["value"] as? String, "pl\u{e9}in")
        XCTAssertEqual(array[1]["label"] as? String, "plain", "the title, for a secret nobody described")
        XCTAssertEqual(array[2]["value_base64"] as? String, "AP8BAg==")
        XCTAssertNil(array[2]["value"])
        // The round trip: the export, imported over the same titles, exports the same.
        let again = try vault(["import", "--replace"], input: exported.output)
        XCTAssertEqual(again.status, 0, again.errorOutput)
        let rerun = try vault(["import"], input: exported.output)
        XCTAssertEqual(rerun.status, 0, "a re-run skips what is there: \(rerun.errorOutput)")
        XCTAssertEqual(
            rerun.errorOutput, "secureroom-vault: imported 0 secrets, skipped 3 already in the vault, failed 0\n")
        // The same from a file named on the command line.
        let file = sandbox.root + "/export-\(UUID().uuidString).json"
        try sandbox.write(file, exported.output, mode: 0o644)
        let fromFile = try vault(["import", "--from", "json", file])
        XCTAssertEqual(
            fromFile.errorOutput, "secureroom-vault: imported 0 secrets, skipped 3 already in the vault, failed 0\n")
        // A title twice, the first as stored: refused, not half skipped and half replaced.
        let twice = try vault(
            ["import", "--replace"], input: #"[{"title":"git","value":"hunter2"},{"title":"git","value":"b"}]"#)
        XCTAssertEqual(twice.status, 1)
        XCTAssertTrue(twice.errorOutput.contains("given twice"), twice.errorOutput)
        XCTAssertEqual(try vault(["get", "git"]).output, "hunter2")
        XCTAssertEqual(try vault(["export"]).output, exported.output)
        // A key import does not know is refused, not dropped.
        let unknown = try vault(["import"], input: #"[{"title":"x","value":"y","url":"https://example.com"}]"#)
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.errorOutput.contains("unknown key \"url\""), unknown.errorOutput)
        XCTAssertEqual(try vault(["get", "x"]).status, 4)
        let both = try vault(["import"], input: #"[{"title":"x","value":"y","value_base64":"eQ=="}]"#)
        XCTAssertEqual(both.status, 1)
        XCTAssertTrue(both.errorOutput.contains("exactly one of value and value_base64"), both.errorOutput)
    }

    /// `import --from pass`: a real pass(1) store, encrypted to a throwaway gpg key of the
    /// user's; each entry decrypted by the user's gpg becomes a secret (the whole file, the
    /// attribute pass-entry); a re-run skips all; an entry gpg cannot decrypt is named and
    /// counted, the rest stored. `--from keepassxc`: KeePassXC's CSV export, quoting and
    /// all; an entry without a password is counted; a changed value is not overwritten
    /// without --replace.
    func testImportFromPassAndKeePassXCCountsSkipsAndReadsBack() throws {
        try prepare()
        try setUpVault()
        let home = stage.scratch + "/import-home"
        try FileManager.default.createDirectory(atPath: home + "/.gnupg", withIntermediateDirectories: true)
        XCTAssertEqual(chown(home, uid, uid), 0)
        XCTAssertEqual(chown(home + "/.gnupg", uid, uid), 0)
        XCTAssertEqual(chmod(home + "/.gnupg", 0o700), 0)
        let environment = [
            "HOME": home, "GNUPGHOME": home + "/.gnupg", "XDG_DATA_HOME": stage.scratch + "/data-\(uid)",
            "PATH": "/usr/bin:/bin", "PASSWORD_STORE_DIR": home + "/store",
        ]
        // Each run stops the gpg-agent it may have started: nothing outlives the test.
        func shell(_ script: String, input: String = "") throws -> ProcessResult {
            try stage.run(
                as: uid, "/bin/sh", ["-c", script + "; s=$?; gpgconf --kill gpg-agent; exit $s"], input: input,
                environment: environment)
        }
        let made = try shell(
            "gpg --batch --quiet --pinentry-mode loopback --passphrase '' --quick-gen-key 'SecureRoom test' "
                + "default default never && pass init 'SecureRoom test' >/dev/null && "
                + "printf 'hunter2\\nlogin: octocat\\n' | pass insert -m web/github >/dev/null && "
                + "printf 'mail-secret\\n' | pass insert -m mail >/dev/null")
        XCTAssertEqual(made.status, 0, made.errorOutput)
        let vault = stage.bin + "/secureroom-vault"
        let imported = try shell("\(vault) import --from pass")
        XCTAssertEqual(imported.status, 0, imported.errorOutput)
        XCTAssertEqual(
            imported.errorOutput, "secureroom-vault: imported 2 secrets, skipped 0 already in the vault, failed 0\n")
        XCTAssertEqual(try self.vault(["get", "web/github"]).output, "hunter2\nlogin: octocat\n")
        XCTAssertEqual(try exportedAttributes()["web/github"], ["pass-entry": "web/github"])
        try sandbox.write(home + "/store/broken.gpg", "not an OpenPGP message", mode: 0o644)
        let again = try shell("\(vault) import --from pass")
        XCTAssertEqual(again.status, 1, "an entry failed")
        XCTAssertTrue(
            again.errorOutput.hasPrefix(
                "secureroom-vault: imported 0 secrets, skipped 2 already in the vault, failed 1\n"
                    + "  broken: gpg could not decrypt it"
            ),
            again.errorOutput)

        // Two entries titled Internet/Forum (the second becomes "Internet/Forum (2)"), one
        // without a password, one whose fields do not match the header, and a URL over the
        // vault's 1024-byte limit: each failure is counted, the rest stored.
        let longURL = "https://example.org/" + String(repeating: "x", count: 1_100)
        let csv = """
            "Group","Title","Username","Password","URL","Notes","TOTP","Icon","Last Modified","Created"
            "Root","Bank","me","p,a""ss","https://bank.example","line 1
            line 2","","0","2026-01-01T00:00:00Z","2026-01-01T00:00:00Z"
            "Root/Internet","Forum","fan","forum-pw","","","","0","",""
            "Root/Internet","Forum","fan2","second-pw","","","","0","",""
            "Root/Internet","Empty","","","","","","0","",""
            "Root","Broken","x"
            "Root","Long","u","long-pw","\(longURL)","","","0","",""

            """
        try sandbox.write(home + "/export.csv", csv, mode: 0o644)
        let keepass = try shell("\(vault) import --from keepassxc \(home)/export.csv")
        XCTAssertEqual(keepass.status, 1, "some entries failed")
        let lines = keepass.errorOutput.split(separator: "\n").map(String.init)
        XCTAssertEqual(
            lines.first, "secureroom-vault: imported 3 secrets, skipped 0 already in the vault, failed 3",
            keepass.errorOutput)
        XCTAssertTrue(lines.contains("  Internet/Empty: entry 4 has no password"), keepass.errorOutput)
        XCTAssertTrue(lines.contains("  entry 5: its fields do not match the header's columns"), keepass.errorOutput)
        XCTAssertTrue(lines.contains { $0.hasPrefix("  Long: ") }, keepass.errorOutput)
        XCTAssertEqual(try self.vault(["get", "Bank"]).output, "p,a\"ss")
        XCTAssertEqual(try self.vault(["get", "Internet/Forum"]).output, "forum-pw")
        XCTAssertEqual(try self.vault(["get", "Internet/Forum (2)"]).output, "second-pw")
        let attributes = try exportedAttributes()
        XCTAssertEqual(attributes["Internet/Forum"], ["keepassxc-group": "Internet", "username": "fan"])
        XCTAssertEqual(attributes["Bank"], ["username": "me", "url": "https://bank.example"])
        try sandbox.write(home + "/export.csv", csv.replacingOccurrences(of: "forum-pw", with: "new-pw"), mode: 0o644)
        let changed = try shell("\(vault) import --from keepassxc \(home)/export.csv")
        XCTAssertTrue(changed.errorOutput.contains("skipped 2 already in the vault, failed 4"), changed.errorOutput)
        XCTAssertTrue(
            changed.errorOutput.contains("  Internet/Forum: already in the vault with another value"),
            changed.errorOutput)
        XCTAssertEqual(try self.vault(["get", "Internet/Forum"]).output, "forum-pw", "not overwritten")
        let replaced = try shell("\(vault) import --from keepassxc --replace \(home)/export.csv")
        XCTAssertTrue(replaced.errorOutput.contains("imported 1 secret, skipped 2"), replaced.errorOutput)
        XCTAssertEqual(try self.vault(["get", "Internet/Forum"]).output, "new-pw")
    }

    /// `import --from secret-service`: the real gnome-keyring-daemon on a private session
    /// bus (dbus-run-session), two items stored by secret-tool under one label: both are
    /// imported with their labels and attributes ("Git token", "Git token (2)"), so the
    /// same lookups find them; a re-run skips both.
    func testImportFromARunningSecretServiceKeepsLabelsAndAttributes() throws {
        try prepare()
        try setUpVault()
        let home = stage.scratch + "/keyring-home"
        for directory in [home, home + "/run"] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            XCTAssertEqual(chown(directory, uid, uid), 0)
            XCTAssertEqual(chmod(directory, 0o700), 0)
        }
        let vault = stage.bin + "/secureroom-vault"
        let script = """
            printf 'keyring password' | gnome-keyring-daemon --unlock --components=secrets >/dev/null || exit 90
            printf 'hub-token' | secret-tool store --label='Git token' service github.com user octocat || exit 91
            printf 'lab-token' | secret-tool store --label='Git token' service gitlab.com user octocat || exit 92
            \(vault) import --from secret-service 2>&1
            \(vault) import --from secret-service 2>&1
            status=$?
            pkill -u "$(id -u)" -x gnome-keyring-d
            # gnome-keyring leaves the bus after pkill returns: serve must find the name free.
            i=0
            while dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \\
                org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets | grep -q true; do
                i=$((i + 1)); [ $i -lt 100 ] || break; sleep 0.1
            done
            # With serve owning the name, an import would read the vault into itself: refused.
            \(vault) serve --pinentry none 2>/dev/null &
            serve=$!
            i=0
            until dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \\
                org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets | grep -q true; do
                i=$((i + 1)); [ $i -lt 100 ] || break; sleep 0.1
            done
            \(vault) import --from secret-service 2>&1
            echo "own-import=$?"
            kill $serve; wait $serve
            exit $status
            """
        let run = try stage.run(
            as: uid, "/usr/bin/dbus-run-session", ["--", "/bin/sh", "-c", script],
            environment: [
                "HOME": home, "XDG_RUNTIME_DIR": home + "/run", "XDG_DATA_HOME": stage.scratch + "/data-\(uid)",
                "PATH": "/usr/bin:/bin",
            ])
        XCTAssertEqual(run.status, 0, run.output + run.errorOutput)
        XCTAssertEqual(
            run.output.split(separator: "\n").filter { $0.hasPrefix("secureroom-vault: imported") },
            [
                "secureroom-vault: imported 2 secrets, skipped 0 already in the vault, failed 0",
                "secureroom-vault: imported 0 secrets, skipped 2 already in the vault, failed 0",
            ], run.output)
        XCTAssertTrue(run.output.contains("secureroom-vault serve is the Secret Service now"), run.output)
        XCTAssertTrue(run.output.contains("own-import=1"), run.output)
        let attributes = try exportedAttributes()
        let values = [try self.vault(["get", "Git token"]).output, try self.vault(["get", "Git token (2)"]).output]
        XCTAssertEqual(Set(values), ["hub-token", "lab-token"])
        let github = values[0] == "hub-token" ? "Git token" : "Git token (2)"
        XCTAssertEqual(attributes[github]?["service"], "github.com")
        XCTAssertEqual(attributes[github]?["user"], "octocat")
    }

    /// Each secret's attributes, by title, from `export`.
    private func exportedAttributes() throws -> [String: [String: String]] {
        let exported = try vault(["export"])
        let array = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(exported.output.utf8)) as? [[String: Any]], exported.errorOutput
        )
        return Dictionary(
            uniqueKeysWithValues: array.compactMap { entry in
                (entry["title"] as? String).map { ($0, entry["attributes"] as? [String: String] ?? [:]) }
            })
    }

    /// Titles as given: `t\xff` and `t\xfe` would both read as "t\u{FFFD}" and address one
    /// secret, so arguments that are not UTF-8 are refused (exit 64) and nothing is stored.
    func testTitlesThatAreNotUTF8AreRefusedNotMerged() throws {
        try prepare()
        try setUpVault()
        let tool = stage.bin + "/secureroom-vault"
        let environment = ["XDG_DATA_HOME": stage.scratch + "/data-\(uid)", "HOME": stage.scratch]
        for byte in ["377", "376"] {
            let result = try stage.run(
                as: uid, "/bin/sh", ["-c", "printf v | \"$0\" add \"$(printf 't\\\(byte)')\"", tool],
                environment: environment)
            XCTAssertEqual(result.status, 64, result.errorOutput)
            XCTAssertTrue(result.errorOutput.contains("argument 2 is not valid UTF-8"), result.errorOutput)
        }
        XCTAssertEqual(try vault(["list"]).output, "")
    }

    func testListEscapesTitlesAndReportsMissingSecrets() throws {
        try prepare()
        try setUpVault()
        XCTAssertEqual(try vault(["add", "line\nbreak"], input: "x").status, 0)
        XCTAssertEqual(try vault(["add", "plain"], input: "y").status, 0)
        let list = try vault(["list"])
        XCTAssertEqual(list.lines.count, 2, list.output)
        XCTAssertTrue(list.lines[0].hasSuffix("  line\\nbreak"), list.output)
        let missing = try vault(["get", "nope"])
        XCTAssertEqual(missing.status, 4)
        XCTAssertEqual(missing.errorOutput, "secureroom-vault: no secret titled \"nope\"\n")
        let duplicate = try vault(["add", "plain"], input: "z")
        XCTAssertEqual(duplicate.status, 1)
        XCTAssertEqual(try vault(["rename", "plain", "renamed"]).status, 0)
        XCTAssertEqual(try vault(["get", "renamed"]).output, "y")
        XCTAssertEqual(try vault(["remove", "renamed"]).status, 0)
        XCTAssertEqual(try vault(["remove", "renamed"]).status, 4)
    }

    func testHelpIsManPageGrade() throws {
        let help = try runProgram(Artifacts.vault, ["--help"])
        XCTAssertEqual(help.status, 0)
        for expected in [
            "EXIT STATUS", "3   the vault is locked", "4   no secret with that title", "FILES",
            "/etc/pam.d/secureroom-vault", "init", "unlock", "rename", "import",
        ] {
            XCTAssertTrue(help.output.contains(expected), "missing \(expected) in:\n\(help.output)")
        }
        let get = try runProgram(Artifacts.vault, ["get", "--help"])
        XCTAssertTrue(get.output.contains("no newline added"), get.output)
        let unknown = try runProgram(Artifacts.vault, ["list", "--colour"])
        XCTAssertEqual(unknown.status, 64)
        XCTAssertTrue(unknown.errorOutput.contains("Unknown option '--colour'"), unknown.errorOutput)
    }
}
