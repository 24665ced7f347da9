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
        try sandbox.enrol(user, pin: pin)
        stage = try UnprivilegedStage(sandbox: sandbox)
        let shipped = try String(contentsOfFile: Artifacts.root + "/pam/secureroom-vault", encoding: .utf8)
        try stage.systemService("secureroom-vault", shipped.split(separator: "\n").map {
            $0.replacingOccurrences(of: "pam_secureroom.so", with: "MODULE")
        })
        // A login stack as root runs it: the PIN, then the session.
        try sandbox.service("login", ["auth required MODULE STATE nodelay", "session required MODULE STATE",
                                      "password required MODULE STATE nodelay"])
        _ = try stage.vault(as: uid, ["lock"])
    }

    override func tearDownWithError() throws {
        if let stage { _ = try stage.vault(as: uid, ["lock"]) }
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
        XCTAssertTrue(result.errorOutput.contains("locked; run 'secureroom-vault unlock'"), result.errorOutput, file: file, line: line)
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

        let wrong = try vault(["unlock", "--stdin"], input: "1397\n")
        XCTAssertEqual(wrong.status, 2, wrong.errorOutput)
        try assertLocked()
        let right = try vault(["unlock", "--stdin"], input: pin + "\n")
        XCTAssertEqual(right.status, 0, right.errorOutput)
        XCTAssertEqual(right.output, "Vault unlocked for 15 min.\n")
        try assertSecret("hunter2")
        // Another user's keyring holds nothing of daemon's.
        let other = try stage.vault(as: 2, ["get", "github"])
        XCTAssertEqual(other.status, 3, other.errorOutput)
        XCTAssertTrue(stage.logLines().contains { $0.contains("vault unlocked for daemon") })
    }

    func testLoginUnlocksWithOneArgon2AndTheLastSessionToCloseLocks() throws {
        try prepare()
        try setUpVault()
        XCTAssertEqual(try vault(["add", "github"], input: "s3cret").status, 0)
        XCTAssertEqual(try vault(["lock"]).status, 0)

        let counter = try sandbox.argon2CounterLibrary()
        let counts = sandbox.root + "/argon2-calls"
        XCTAssertTrue(FileManager.default.createFile(atPath: counts, contents: nil))
        let login = try sandbox.pam("login", user: user, responses: [pin], operations: ["auth", "open"],
                                    environment: ["LD_PRELOAD": counter, "ARGON2_COUNTER_FILE": counts])
        XCTAssertEqual(login.results, ["auth: 0 Success", "open: 0 Success"], login.process.output)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: counts)).count, 1, "one argon2 run verifies and unlocks")
        try assertSecret("s3cret")

        // A second session (no PIN asked: the key is there), then the two close.
        let second = try sandbox.pam("login", user: user, operations: ["open"])
        XCTAssertEqual(second.results, ["open: 0 Success"])
        XCTAssertEqual(second.infos, [])
        XCTAssertEqual(try sandbox.pam("login", user: user, operations: ["close"]).code, 0)
        try assertSecret("s3cret")
        XCTAssertEqual(try sandbox.pam("login", user: user, operations: ["close"]).code, 0)
        try assertLocked()

        // A session without the PIN (sshd with a key): nothing unlocked, the user is told how.
        let keyOnly = try sandbox.pam("login", user: user, operations: ["open"])
        XCTAssertEqual(keyOnly.code, 0)
        XCTAssertEqual(keyOnly.infos, ["Your SecureRoom vault is locked; run 'secureroom-vault unlock' to open it."])
        try assertLocked()
        XCTAssertEqual(try sandbox.pam("login", user: user, operations: ["close"]).code, 0)
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
        let login = try stage.pam(as: 2, "login", user: user, responses: [pin], operations: ["auth", "setcred", "open"],
                                  driverOptions: ["--report-ids"], driver: setuidDriver)
        XCTAssertEqual(login.results, ["auth: 0 Success", "setcred: 0 Success", "open: 0 Success"], login.process.output)
        let ids = login.process.lines.filter { $0.hasPrefix("ids: ") }
        XCTAssertEqual(ids, ["ids: 2 0 0 / 2 2 2", "ids: 2 0 0 / 2 2 2"], "ids before pam_start and after pam_end")
        try assertSecret("s3cret")
        XCTAssertEqual(try sandbox.pam("login", user: user, operations: ["close"]).code, 0)
    }

    /// su from a shell with its own session keyring (`keyctl session`, as `keyctl
    /// new_session` makes), which does not link the target's user keyring: the key still
    /// gets its permissions and timeout, and the last close removes it. Regression: the
    /// key was added to @u without possession, keyctl_setperm failed with EACCES, and the
    /// key stayed with no timeout after the session closed.
    func testSuFromAShellWithItsOwnSessionKeyringStillLocks() throws {
        try prepare(extraConfiguration: "vault_timeout = 3s\n")
        try setUpVault()
        XCTAssertEqual(try vault(["add", "github"], input: "s3cret").status, 0)
        XCTAssertEqual(try vault(["lock"]).status, 0)
        let setuidDriver = try makeSetuidDriver()
        let keyctl = try XCTUnwrap(["/usr/bin/keyctl", "/bin/keyctl"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                   "keyctl (Debian: keyutils) is missing")
        func su(_ operations: [String]) throws -> PAMTranscript {
            PAMTranscript(try stage.run(as: 2, keyctl, ["session", "-", setuidDriver]
                                        + sandbox.driverArguments("login", user: user, options: [], operations: operations),
                                        input: Sandbox.lines([pin])))
        }
        let login = try su(["auth", "setcred", "open"])
        XCTAssertEqual(login.results, ["auth: 0 Success", "setcred: 0 Success", "open: 0 Success"], login.process.output)
        try assertSecret("s3cret")
        XCTAssertEqual(try su(["close"]).results, ["close: 0 Success"])
        try assertLocked()
        // And the timeout, with no close at all (a su killed with SIGKILL).
        XCTAssertEqual(try su(["auth", "setcred"]).results, ["auth: 0 Success", "setcred: 0 Success"])
        try assertSecret("s3cret")
        Thread.sleep(forTimeInterval: 4.5)
        try assertLocked()
    }

    func testTimeoutLocks() throws {
        try prepare(extraConfiguration: "vault_timeout = 2s\n")
        try setUpVault()
        XCTAssertEqual(try vault(["add", "github"], input: "v").status, 0)
        try assertSecret("v")
        Thread.sleep(forTimeInterval: 3.5)
        try assertLocked()
    }

    func testPINChangeKeepsEverySecret() throws {
        try prepare()
        try setUpVault()
        for index in 0..<20 { XCTAssertEqual(try vault(["add", "s\(index)"], input: "value \(index)").status, 0) }
        XCTAssertEqual(try vault(["add", "github"], input: "before").status, 0)

        // The user's own change, through the helper.
        let change = try stage.cli(as: uid, ["change", "--stdin"], input: "\(pin)\n1397\n")
        XCTAssertEqual(change.status, 0, change.errorOutput)
        XCTAssertEqual(try vault(["lock"]).status, 0)
        XCTAssertEqual(try vault(["unlock", "--stdin"], input: pin + "\n").status, 2, "the old PIN no longer opens it")
        XCTAssertEqual(try vault(["unlock", "--stdin"], input: "1397\n").status, 0)
        try assertSecret("before")

        // pam_chauthtok as root (passwd-style), then a login with the newest PIN.
        let passwd = try sandbox.pam("login", user: user, responses: ["1397", "5182", "5182"], operations: ["chauthtok"])
        XCTAssertEqual(passwd.code, 0, passwd.process.output)
        XCTAssertEqual(try vault(["lock"]).status, 0)
        XCTAssertEqual(try vault(["unlock", "--stdin"], input: "1397\n").status, 2)
        XCTAssertEqual(try vault(["unlock", "--stdin"], input: "5182\n").status, 0)
        for index in 0..<20 { XCTAssertEqual(try vault(["get", "s\(index)"]).output, "value \(index)") }
    }

    func testRecoveryKeyKeepsTheVaultThroughAnAdministratorsNewPIN() throws {
        try prepare()
        let recovery = try setUpVault()
        XCTAssertEqual(try vault(["add", "github"], input: "kept").status, 0)

        let refused = try sandbox.cli(["set", user, "--stdin"], input: "9731\n")
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.errorOutput.contains("has a vault: a new PIN without the recovery key makes it unreadable"), refused.errorOutput)

        let wrongKey = String(repeating: "1", count: 40)
        let wrong = try sandbox.cli(["set", user, "--recovery-key", "--stdin"], input: "\(wrongKey)\n9731\n")
        XCTAssertEqual(wrong.status, 1)
        XCTAssertTrue(wrong.errorOutput.contains("the recovery key does not open the vault of daemon"), wrong.errorOutput)
        let malformed = try sandbox.cli(["set", user, "--recovery-key", "--stdin"], input: "12345\n9731\n")
        XCTAssertTrue(malformed.errorOutput.contains("a recovery key is 40 digits"), malformed.errorOutput)

        let restored = try sandbox.cli(["set", user, "--recovery-key", "--stdin"], input: "\(recovery)\n9731\n")
        XCTAssertEqual(restored.status, 0, restored.errorOutput)
        XCTAssertEqual(try vault(["lock"]).status, 0)
        XCTAssertEqual(try vault(["unlock", "--stdin"], input: "9731\n").status, 0)
        try assertSecret("kept")

        // --force: the new PIN does not open the vault; the recovery key still can.
        XCTAssertEqual(try sandbox.cli(["set", user, "--force", "--stdin"], input: "5182\n").status, 0)
        XCTAssertEqual(try sandbox.status(user)["vault"] as? String, "recovery-only")
        XCTAssertEqual(try vault(["lock"]).status, 0)
        let noKey = try vault(["unlock", "--stdin"], input: "5182\n")
        XCTAssertEqual(noKey.status, 1)
        XCTAssertTrue(noKey.errorOutput.contains("PIN accepted, but"), noKey.errorOutput)
        XCTAssertEqual(try sandbox.cli(["set", user, "--recovery-key", "--stdin"], input: "\(recovery)\n5182\n").status, 0)
        XCTAssertEqual(try sandbox.status(user)["vault"] as? String, "pin")
        XCTAssertEqual(try vault(["unlock", "--stdin"], input: "5182\n").status, 0)
        try assertSecret("kept")
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
        XCTAssertTrue(stage.logLines().contains { $0.hasPrefix("<81>")  // LOG_AUTHPRIV | LOG_ALERT
                          && $0.contains("vault key of daemon (uid 1) erased after 3 consecutive failed PIN attempts") },
                      stage.logLines().joined(separator: "\n"))
        let credential = try String(contentsOfFile: sandbox.state + "/users/daemon.credential", encoding: .utf8)
        XCTAssertFalse(credential.contains("vault-key"))

        XCTAssertEqual(try vault(["unlock", "--stdin"], input: pin + "\n").status, 1, "the right PIN no longer opens the vault")
        try assertLocked()
        // The next login with the PIN (as root) says what happened, once.
        let told = try sandbox.pam("login", user: user, responses: [pin])
        XCTAssertEqual(told.code, 0, told.process.output)
        XCTAssertEqual(told.errors.count, 1, told.process.output)
        XCTAssertTrue(told.errors.first?.hasPrefix("Your SecureRoom vault key was erased at ") == true, "\(told.errors)")
        XCTAssertTrue(told.errors.first?.contains(" after 3 failed PIN attempts. ") == true, "\(told.errors)")
        XCTAssertTrue(told.errors.first?.hasSuffix("'secureroom set daemon --recovery-key' and your recovery key.") == true)
        XCTAssertEqual(try sandbox.pam("login", user: user, responses: [pin]).errors, [], "told once")
        XCTAssertEqual(try sandbox.cli(["set", user, "--recovery-key", "--stdin"], input: "\(recovery)\n\(pin)\n").status, 0)
        XCTAssertEqual(try vault(["unlock", "--stdin"], input: pin + "\n").status, 0)
        try assertSecret("erased?")
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
        let result = try stage.run(as: uid, "/bin/sh", ["-c", script],
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
        XCTAssertEqual(imported.errorOutput, "secureroom-vault: imported 300 secrets\n")
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
        let twice = try vault(["import", "--replace"], input: #"[{"title":"site-7","value":"a"},{"title":"site-7","value":"b"}]"#)
        XCTAssertEqual(twice.status, 1, twice.errorOutput)
        XCTAssertTrue(twice.errorOutput.contains("given twice"), twice.errorOutput)
        XCTAssertEqual(try vault(["get", "site-7"]).output, "v7 \u{e9}\n")
        let replaced = try vault(["import", "--replace"], input: #"[{"title":"site-7","value":"seven"}]"#)
        XCTAssertEqual(replaced.status, 0, replaced.errorOutput)
        XCTAssertEqual(try vault(["get", "site-7"]).output, "seven")
        XCTAssertEqual(try vault(["status", "--json"]).output.contains("300"), true)
    }

    /// Titles as given: `t\xff` and `t\xfe` would both read as "t\u{FFFD}" and address one
    /// secret, so arguments that are not UTF-8 are refused (exit 64) and nothing is stored.
    func testTitlesThatAreNotUTF8AreRefusedNotMerged() throws {
        try prepare()
        try setUpVault()
        let tool = stage.bin + "/secureroom-vault"
        let environment = ["XDG_DATA_HOME": stage.scratch + "/data-\(uid)", "HOME": stage.scratch]
        for byte in ["377", "376"] {
            let result = try stage.run(as: uid, "/bin/sh", ["-c", "printf v | \"$0\" add \"$(printf 't\\\(byte)')\"", tool],
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
        for expected in ["EXIT STATUS", "3   the vault is locked", "4   no secret with that title", "FILES",
                         "/etc/pam.d/secureroom-vault", "init", "unlock", "rename", "import"] {
            XCTAssertTrue(help.output.contains(expected), "missing \(expected) in:\n\(help.output)")
        }
        let get = try runProgram(Artifacts.vault, ["get", "--help"])
        XCTAssertTrue(get.output.contains("no newline added"), get.output)
        let unknown = try runProgram(Artifacts.vault, ["list", "--colour"])
        XCTAssertEqual(unknown.status, 64)
        XCTAssertTrue(unknown.errorOutput.contains("Unknown option '--colour'"), unknown.errorOutput)
    }
}
