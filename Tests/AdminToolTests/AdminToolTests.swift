// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// The `secureroom` admin tool, run as installed.
final class AdminToolTests: XCTestCase {
    let user = "daemon"

    func testEverySubcommandHasHelpThatDocumentsItsOptions() throws {
        let expectations: [[String]: [String]] = [
            []: [
                "init", "set", "change", "reset", "status", "policy", "tune", "EXIT STATUS",
                "/etc/security/secureroom.conf",
                "ANY USER (THEIR OWN PIN) SUBCOMMANDS:", "ROOT ONLY SUBCOMMANDS:", "enrol", "expire",
            ],
            ["enrol"]: ["--replace", "--stdin", "secureroom-enrol", "enrol_vault", "enrol_group", "secureroom change"],
            ["expire"]: ["<user>", "refuses the login", "must_change", "--dir"],
            ["tune"]: ["--target-ms", "--max-memory", "--lanes", "RFC 9106", "argon2_memory="],
            ["init"]: ["--dir", "--config", "pepper", "0700"],
            ["set"]: ["<user>", "--stdin", "--allow-weak", "--dir", "blocklist", "--expire"],
            ["change"]: ["[<user>]", "--stdin", "lockout"],
            ["reset"]: ["<user>", "--remove-pin", "--dir"],
            ["status"]: ["--json", "locked_until", "last_success", "--dir"],
            ["policy", "show"]: ["--json", "blocklist_size", "--dir"],
            ["policy", "check"]: ["standard input", "Exit status", "--dir"],
        ]
        for (command, words) in expectations {
            let result = try runProgram(Artifacts.cli, command + ["--help"])
            XCTAssertEqual(result.status, 0, "\(command)")
            for word in words {
                XCTAssertTrue(
                    result.output.contains(word), "`secureroom \(command.joined(separator: " ")) --help` lacks \(word)")
            }
        }
    }

    /// Run by an ordinary user, every administrator's subcommand stops at once with one
    /// line that says why and what to do instead (nothing is read or written); `status`
    /// shows them their own account instead (UserStatusTests).
    func testAdministratorsSubcommandsRefuseOtherUsersWithAReason() throws {
        let stage = try UnprivilegedStage(sandbox: try Sandbox())
        for command in [
            ["init"], ["set", "daemon"], ["expire", "daemon"], ["reset", "daemon"], ["tpm", "status"],
            ["tpm", "harden"],
        ] {
            let result = try stage.cli(as: 1, command)
            XCTAssertEqual(result.status, 1, "\(command)")
            XCTAssertEqual(
                result.errorOutput,
                "secureroom: 'secureroom \(command.prefix(command[0] == "tpm" ? 2 : 1).joined(separator: " "))' "
                    + "needs root: the PIN records are readable by root only; run it with sudo "
                    + "(users change their own PIN with 'secureroom change')\n", "\(command)")
        }
    }

    func testTuneMeasuresRealArgon2AndProposesParametersWithinTheTarget() throws {
        let result = try runProgram(
            Artifacts.cli, ["tune", "--target-ms", "60", "--max-memory", "20", "--lanes", "1", "--json"])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let proposal = try XCTUnwrap(object["proposal"] as? [String: Any])
        let trials = try XCTUnwrap(object["trials"] as? [[String: Any]])
        XCTAssertEqual(object["target_ms"] as? Int, 60)
        XCTAssertEqual(proposal["lanes"] as? Int, 1)
        XCTAssertLessThanOrEqual(try XCTUnwrap(proposal["memory_kib"] as? Int), 20 * 1024)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(proposal["memory_kib"] as? Int), 19 * 1024, "the floor")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(proposal["iterations"] as? Int), 2, "the floor")
        XCTAssertFalse(trials.isEmpty)
        // Memory first: the first trial is the most memory allowed, with the floor's passes.
        XCTAssertEqual(trials[0]["memory_kib"] as? Int, 20 * 1024)
        XCTAssertEqual(trials[0]["iterations"] as? Int, 2)
        if object["fits"] as? Bool == true {
            XCTAssertLessThanOrEqual(try XCTUnwrap(proposal["milliseconds"] as? Double), 60)
        }
        let text = try runProgram(Artifacts.cli, ["tune", "--target-ms", "50", "--max-memory", "19"])
        XCTAssertEqual(text.status, 0, text.errorOutput)
        XCTAssertTrue(text.output.contains("argon2_memory=19456\n"), text.output)
        XCTAssertTrue(text.output.contains("argon2_lanes="), text.output)
        for bad in [
            ["--target-ms", "5"], ["--max-memory", "4096"], ["--max-memory", "18"], ["--lanes", "0"], ["--colour"],
        ] {
            let refused = try runProgram(Artifacts.cli, ["tune"] + bad)
            XCTAssertEqual(refused.status, 64, "\(bad)")
            XCTAssertFalse(refused.errorOutput.isEmpty)
        }
    }

    func testSetAppliesThePolicyUnlessAllowWeak() throws {
        let sandbox = try Sandbox()
        let weak = try sandbox.cli(["set", user, "--stdin"], input: "1234\n")
        XCTAssertEqual(weak.status, 1)
        XCTAssertTrue(weak.errorOutput.contains("on the list of commonly chosen PINs"), weak.errorOutput)
        XCTAssertTrue(weak.errorOutput.hasSuffix(" (--allow-weak accepts it)\n"), "root is told: \(weak.errorOutput)")
        XCTAssertEqual(try sandbox.status(user)["enrolled"] as? Bool, false)
        XCTAssertEqual(try sandbox.cli(["set", user, "--stdin", "--allow-weak"], input: "1234\n").status, 0)
        XCTAssertEqual(try sandbox.status(user)["enrolled"] as? Bool, true)
    }

    func testSetRefusesMalformedPINsOddNamesAndUnknownAccounts() throws {
        let sandbox = try Sandbox()
        for input in ["12a4\n", "123\n", "\n", "", String(repeating: "9", count: 100_000) + "\n"] {
            let result = try sandbox.cli(["set", user, "--stdin"], input: input)
            XCTAssertEqual(result.status, 1, "input of \(input.count) bytes")
            XCTAssertFalse(result.errorOutput.isEmpty)
        }
        for name in ["../etc", "a/b", String(repeating: "x", count: 300), "srnosuchuser"] {
            let result = try sandbox.cli(["set", name, "--stdin"], input: "7391\n")
            XCTAssertEqual(result.status, 1, name)
            XCTAssertTrue(result.errorOutput.contains("user"), result.errorOutput)
        }
    }

    func testStatusJSONHasTheDocumentedFields() throws {
        let sandbox = try Sandbox()
        try sandbox.setPIN(user, pin: "7391")
        let status = try sandbox.status(user)
        for key in [
            "user", "enrolled", "state", "failures", "locked_until", "disabled", "last_success", "last_failure",
        ] {
            XCTAssertNotNil(status[key], key)
        }
        XCTAssertTrue(status["locked_until"] is NSNull)
        XCTAssertEqual(status["state"] as? String, "open")
        let all = try sandbox.cli(["status", "--json"])
        let array = try JSONSerialization.jsonObject(with: Data(all.output.utf8)) as? [[String: Any]]
        XCTAssertEqual(array?.compactMap { $0["user"] as? String }, [user])
        let table = try sandbox.cli(["status"])
        XCTAssertTrue(table.output.hasPrefix("USER"), table.output)
        // A record made at other argon2 parameters than configured is shown as such.
        XCTAssertEqual(status["argon2"] as? String, "m=256,t=1,p=1")
        XCTAssertEqual(status["argon2_below_policy"] as? Bool, false)
        try sandbox.write(
            sandbox.config,
            try String(contentsOfFile: sandbox.config, encoding: .utf8)
                .replacingOccurrences(of: "argon2_memory = 256", with: "argon2_memory = 512"), mode: 0o600)
        XCTAssertEqual(try sandbox.status(user)["argon2_below_policy"] as? Bool, true)
        XCTAssertTrue(
            try sandbox.cli(["status", "--wide"]).output.contains("m=256,t=1,p=1 (old: re-derived at next login)"))
        let narrow = try sandbox.cli(["status"])
        XCTAssertEqual(narrow.lines.filter { $0.count > 80 }, [], "the table fits 80 columns")
        XCTAssertEqual(narrow.lines.last, "Some users have more to see (TPM, argon2): secureroom status --wide")
        try sandbox.write(
            sandbox.config,
            try String(contentsOfFile: sandbox.config, encoding: .utf8)
                .replacingOccurrences(of: "argon2_memory = 512", with: "argon2_memory = 128"), mode: 0o600)
        XCTAssertEqual(try sandbox.status(user)["argon2_below_policy"] as? Bool, false, "a lower cost never reaches it")
    }

    /// A name without an account and without a PIN is an error, not an empty row; an
    /// account without a PIN is a row.
    func testStatusOfAnUnknownNameSaysSo() throws {
        let sandbox = try Sandbox()
        let unknown = try sandbox.cli(["status", "nosuchuser"])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertEqual(
            unknown.errorOutput, "secureroom: no such user \"nosuchuser\", and no PIN records for that name\n")
        XCTAssertEqual(try sandbox.cli(["status", "nosuchuser", "--json"]).status, 1)
        let known = try sandbox.cli(["status", "bin"])
        XCTAssertEqual(known.status, 0, known.errorOutput)
        XCTAssertEqual(known.lines.count, 2)
        XCTAssertTrue(known.lines[1].hasPrefix("bin          no "), known.output)
    }

    /// A record that cannot be read blocks nobody: `status` shows it and why, `set` says
    /// what to run, `reset` moves it aside (kept, never deleted) and starts clean.
    func testACorruptRecordIsShownMovedAsideAndNeverBlocksTheAdministrator() throws {
        let sandbox = try Sandbox()
        try sandbox.setPIN(user, pin: "7391")
        let users = sandbox.state + "/users"
        try sandbox.write(users + "/\(user).lockout", "SECUREROOM-LOCKOUT/2\nfailures: lots\n", mode: 0o600)
        let status = try sandbox.status(user)
        XCTAssertEqual(status["state"] as? String, "corrupt")
        let reason = try XCTUnwrap(status["corrupt"] as? String)
        XCTAssertTrue(reason.hasPrefix("corrupt record \(users)/\(user).lockout: "), reason)
        XCTAssertTrue(try sandbox.cli(["status"]).output.contains("'secureroom reset \(user)' moves it aside"))

        let set = try sandbox.cli(["set", user, "--stdin"], input: "6028\n")
        XCTAssertEqual(set.status, 1)
        XCTAssertEqual(
            set.errorOutput, "secureroom: \(reason); 'secureroom reset \(user)' moves it aside, then run this again\n")

        let reset = try sandbox.cli(["reset", user])
        XCTAssertEqual(reset.status, 0, reset.errorOutput)
        let aside = try FileManager.default.contentsOfDirectory(atPath: users).filter {
            $0.hasPrefix("\(user).lockout.corrupt-")
        }
        XCTAssertEqual(aside.count, 1, "kept for inspection")
        XCTAssertTrue(reset.output.contains("moved aside to \(aside.first ?? "?")"), reset.output)
        XCTAssertEqual(try sandbox.status(user)["state"] as? String, "open")
        try sandbox.probeService()
        XCTAssertEqual(
            try sandbox.pam(user: user, responses: ["7391"]).code, PAMCode.success, "the PIN itself was fine")
        XCTAssertEqual(try sandbox.cli(["set", user, "--stdin"], input: "6028\n").status, 0)

        // A credential nobody can read: moved aside, and the user has no PIN until `set`.
        try sandbox.write(users + "/\(user).credential", "SECUREROOM-CREDENTIAL/1\n", mode: 0o600)
        let resetAgain = try sandbox.cli(["reset", user])
        XCTAssertEqual(resetAgain.status, 0, resetAgain.errorOutput)
        XCTAssertTrue(
            resetAgain.output.contains("\(user) has no PIN now; give one with: secureroom set \(user)"),
            resetAgain.output)
        XCTAssertEqual(try sandbox.status(user)["enrolled"] as? Bool, false)
        XCTAssertEqual(
            try sandbox.cli(["set", user, "--stdin"], input: "6028\n").status, 0, "the hinted command works")
    }

    /// Waiting on a user's lock says, after a second, who holds it.
    func testAWaitForALockNamesItsHolder() throws {
        let sandbox = try Sandbox()
        try sandbox.setPIN(user, pin: "7391")
        let lock = sandbox.state + "/users/\(user).lock"
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = [lock, "sleep", "3"]
        try holder.run()
        defer { holder.terminate() }
        usleep(300_000)
        let reset = try sandbox.cli(["reset", user])
        XCTAssertEqual(reset.status, 0, reset.errorOutput)
        XCTAssertEqual(
            reset.errorOutput,
            "secureroom: waiting for \(lock), locked by pid \(holder.processIdentifier) (flock) "
                + "(ending it after 5 s)\n")
    }

    /// Root's command ends a process that keeps a user's lock past the patience (a user's
    /// stopped su, say), says so, and completes (docs/DESIGN.md §4, "A stalled holder").
    func testRootsCommandEndsAHolderThatKeepsTheLock() throws {
        let sandbox = try Sandbox()
        try sandbox.setPIN(user, pin: "7391")
        try sandbox.probeService()
        XCTAssertEqual(try sandbox.pam(user: user, responses: ["1111"]).code, PAMCode.authError)
        let lock = sandbox.state + "/users/\(user).lock"
        let holder = try LockHolderProcess(path: lock)
        defer { holder.stop() }
        let started = Date()
        let reset = try sandbox.cli(["reset", user])
        let took = Date().timeIntervalSince(started)
        XCTAssertEqual(reset.status, 0, reset.errorOutput)
        XCTAssertTrue(
            reset.errorOutput.hasSuffix(
                "secureroom: ended pid \(holder.process.processIdentifier) (python3), which held \(lock) for 5 s\n"),
            reset.errorOutput)
        holder.process.waitUntilExit()
        XCTAssertEqual(holder.process.terminationReason, .uncaughtSignal)
        XCTAssertEqual(holder.process.terminationStatus, SIGKILL)
        XCTAssertEqual(try sandbox.status(user)["failures"] as? Int, 0)
        XCTAssertLessThan(took, 10.0, "5 s of patience, then the holder ends at once")
    }

    func testChangeCountsAWrongCurrentPINAndChangesWithTheRightOne() throws {
        let sandbox = try Sandbox()
        try sandbox.setPIN(user, pin: "7391")
        let wrong = try sandbox.cli(["change", user, "--stdin"], input: "1111\n6028\n")
        XCTAssertEqual(wrong.status, 2)
        XCTAssertTrue(wrong.errorOutput.contains("Incorrect PIN."), wrong.errorOutput)
        XCTAssertEqual(try sandbox.status(user)["failures"] as? Int, 1)
        XCTAssertEqual(try sandbox.cli(["change", user, "--stdin"], input: "7391\n6028\n").status, 0)
        try sandbox.probeService()
        XCTAssertEqual(try sandbox.pam(user: user, responses: ["6028"]).code, PAMCode.success)
    }

    func testResetAndRemovePIN() throws {
        let sandbox = try Sandbox.enrolled(user, pin: "7391")
        _ = try sandbox.pam(user: user, responses: ["1111"])
        let reset = try sandbox.cli(["reset", user])
        XCTAssertEqual(reset.status, 0)
        XCTAssertTrue(reset.output.contains("was 1 consecutive failures"), reset.output)
        XCTAssertEqual(try sandbox.cli(["reset", user, "--remove-pin"]).status, 0)
        XCTAssertEqual(try sandbox.status(user)["enrolled"] as? Bool, false)
        XCTAssertEqual(try sandbox.cli(["reset", user]).status, 1, "nothing to reset")
    }

    func testPolicyShowAndCheck() throws {
        let sandbox = try Sandbox()
        let show = try sandbox.cli(["policy", "show", "--json"])
        let policy = try JSONSerialization.jsonObject(with: Data(show.output.utf8)) as? [String: Any]
        XCTAssertEqual(policy?["digits"] as? Int, 4)
        XCTAssertEqual(policy?["deny"] as? Int, 9)
        XCTAssertEqual(policy?["blocklist_size"] as? Int, 2756)
        XCTAssertEqual((policy?["schedule"] as? [Any])?.count, 4)
        let check = try sandbox.cli(["policy", "check"], input: "6193\n1234\n8642\n12a4\n6028\n7391\n")
        XCTAssertEqual(check.status, 1)
        XCTAssertEqual(
            check.lines,
            [
                "1234: on the list of commonly chosen PINs; a sequence (constant step of 1)",
                "8642: on the list of commonly chosen PINs; a sequence (constant step of -2)",
                "12a4: not 4 ASCII digits",
                "7391: on the list of commonly chosen PINs",
            ])
        XCTAssertEqual(try sandbox.cli(["policy", "check"], input: "6193\n").status, 0)
    }

    func testInitRefusesAnInsecureParentAndASecondInit() throws {
        let sandbox = try Sandbox()
        XCTAssertEqual(try sandbox.cli(["init"]).status, 1, "pepper exists")
        let open = sandbox.root + "/open"
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false)
        chmod(open, 0o777)
        let result = try runProgram(Artifacts.cli, ["init", "--dir", open + "/state"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.errorOutput.contains("writable by group or others"), result.errorOutput)
    }

    func testUnknownConfigKeysWarnAndBadOnesFail() throws {
        let sandbox = try Sandbox(configuration: Sandbox.fastKDF + "frobnicate = 1\n")
        let warned = try sandbox.cli(["policy", "show"])
        XCTAssertEqual(warned.status, 0)
        XCTAssertTrue(warned.errorOutput.contains("ignoring unknown option \"frobnicate\""), warned.errorOutput)
        try sandbox.write(sandbox.config, "deny = lots\n", mode: 0o600)
        let failed = try sandbox.cli(["policy", "show"])
        XCTAssertEqual(failed.status, 1)
        XCTAssertTrue(failed.errorOutput.contains("secureroom.conf:1"), failed.errorOutput)
        XCTAssertEqual(try runProgram(Artifacts.cli, ["set"]).status, 64, "usage error")
    }
}
