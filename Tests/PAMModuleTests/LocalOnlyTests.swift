// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// `remote=deny` (the default): a transaction from the network is ignored without a
/// prompt, so the stack asks for the password as it would without SecureRoom; and
/// `authsucc`: a successful password authentication lifts the PIN lockout.
final class LocalOnlyTests: XCTestCase {
    let user = "daemon"
    let pin = "7391"

    /// sshd (a `remote_services=` entry) and a PAM_RHOST naming another host: no prompt,
    /// PAM_IGNORE (pam_debug's marker behind it), nothing counted, even for a wrong PIN.
    func testTransactionsFromTheNetworkAreIgnoredWithoutAPrompt() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin)
        try sandbox.probeService("sshd")
        for (service, rhost) in [
            ("sshd", nil), ("sshd", "127.0.0.1"), ("probe", "203.0.113.7"), ("probe", "client.example.org"),
            ("probe", "::ffff:198.51.100.2"),
        ] as [(String, String?)] {
            let result = try sandbox.pam(
                service, user: user, responses: ["1357"], options: rhost.map { ["--rhost", $0] } ?? [])
            XCTAssertEqual(
                result.code, PAMCode.credentialExpired, "\(service) from \(rhost ?? "-"): \(result.process.output)")
            XCTAssertEqual(result.prompts, [], "\(service) from \(rhost ?? "-")")
            XCTAssertEqual(result.errors, [])
        }
        XCTAssertEqual(try sandbox.status(user)["failures"] as? Int, 0)
    }

    /// The local host in any of its spellings is local: the PIN is asked for and works.
    /// Lookalikes of its name are remote (third red team, F4). The driver runs in new UTS
    /// and mount namespaces, as host "srbox" with its own /etc/hosts.
    func testTheLocalHostIsLocalAndItsLookalikesAreNot() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin)
        let hosts = sandbox.root + "/hosts"
        try sandbox.write(hosts, "127.0.0.1 localhost\n127.0.1.1 srbox.corp.example srbox\n", mode: 0o644)
        func login(from rhost: String) throws -> PAMTranscript {
            let arguments = sandbox.driverArguments(
                "probe", user: user, options: ["--rhost", rhost], operations: ["auth"])
            let script = "hostname srbox && mount --bind \"$0\" /etc/hosts && exec \"$@\""
            return PAMTranscript(
                try runProgram(
                    "/usr/bin/unshare",
                    [
                        "--uts", "--mount", "--propagation", "private", "/bin/sh",
                        "-c", script, hosts, Artifacts.driver,
                    ] + arguments,
                    input: Sandbox.lines([pin])))
        }
        for rhost in [
            "", "localhost", "127.0.0.1", "127.1.2.3", "::1", "srbox", "SRBOX.", "srbox.corp.example",
            "SrBox.Corp.Example.",
        ] {
            let result = try login(from: rhost)
            XCTAssertEqual(
                result.code, PAMCode.success, "rhost \(rhost): \(result.process.output)\(result.process.errorOutput)")
            XCTAssertEqual(result.prompts, ["PIN: "], "rhost \(rhost)")
        }
        for rhost in [
            "srbox.evil.example", "SRBOX.attacker.net", "srbox.corp.example.evil.net", "srbox.exämple.example",
            "127.1", "2130706433",
        ] {
            let result = try login(from: rhost)
            XCTAssertEqual(result.code, PAMCode.credentialExpired, "rhost \(rhost): \(result.process.output)")
            XCTAssertEqual(result.prompts, [], "rhost \(rhost)")
        }
    }

    /// `remote=allow` brings the PIN to the network, and `remote_services=` names the
    /// services that always count as remote.
    func testRemoteAllowAndTheServiceList() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin)
        try sandbox.probeService("sshd", arguments: "remote=allow")
        XCTAssertEqual(try sandbox.pam("sshd", user: user, responses: [pin]).code, PAMCode.success)
        try sandbox.probeService("xrdp", arguments: "remote_services=sshd,xrdp")
        let xrdp = try sandbox.pam("xrdp", user: user, responses: [pin])
        XCTAssertEqual(xrdp.code, PAMCode.credentialExpired)
        XCTAssertEqual(xrdp.prompts, [])
        try sandbox.probeService("sshd", arguments: "remote_services=")
        XCTAssertEqual(
            try sandbox.pam("sshd", user: user, responses: [pin], options: ["--rhost", "127.0.0.1"]).code,
            PAMCode.success, "with no remote services, a loopback client is local")
    }

    /// The account and password groups ignore remote transactions too.
    func testAccountAndPasswordGroupsIgnoreRemoteTransactions() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin)
        try sandbox.probeService("sshd", group: "account")
        XCTAssertEqual(try sandbox.pam("sshd", user: user, operations: ["acct"]).code, PAMCode.credentialExpired)
        try sandbox.probeService("sshd", group: "password")
        let change = try sandbox.pam("sshd", user: user, responses: [pin, "5826", "5826"], operations: ["chauthtok"])
        XCTAssertEqual(change.prompts, [])
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success, "the PIN did not change")
    }

    /// pam_faillock's authsucc pattern: a line after the password module clears the PIN
    /// lockout; it returns PAM_IGNORE, so it can never let anyone in by itself.
    func testASuccessfulPasswordLiftsTheLockoutAndAuthsuccNeverGrants() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin, configuration: Sandbox.fastKDF + "deny = 3\nschedule =\n")
        for wrong in ["1111", "2222", "3333"] {
            XCTAssertEqual(try sandbox.pam(user: user, responses: [wrong]).code, PAMCode.authError)
        }
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.maxTries)
        // A stand-in for "the password was right": pam_permit, then the authsucc line.
        try sandbox.service("password-ok", ["auth required pam_permit.so", "auth optional MODULE STATE authsucc"])
        XCTAssertEqual(try sandbox.pam("password-ok", user: user).code, PAMCode.success)
        XCTAssertEqual(try sandbox.status(user)["failures"] as? Int, 0)
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success)
        // Misplaced as `sufficient` before a failing password module, it still grants nothing.
        try sandbox.service("misplaced", ["auth sufficient MODULE STATE authsucc", "auth required pam_deny.so"])
        let misplaced = try sandbox.pam("misplaced", user: user)
        XCTAssertEqual(misplaced.code, PAMCode.authError)
        XCTAssertEqual(misplaced.prompts, [])
    }

    /// Regression (third red team, F1): with both profiles enabled, a PIN success jumps
    /// to pam_permit and the `authsucc` line runs after it. Only a primary authentication
    /// other than the PIN may lift the lockout: the failures the PIN's own success keeps
    /// for a year (made more than 5 minutes before it) stay counted; a password success
    /// in the same stack still lifts them.
    func testAPINLoginDoesNotLiftTheLockoutThatAPasswordLifts() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin, configuration: Sandbox.fastKDF + "deny = 5\nschedule =\n")
        for wrong in ["1111", "2222", "3333", "4444"] {
            XCTAssertEqual(try sandbox.pam(user: user, responses: [wrong]).code, PAMCode.authError)
        }
        try ageFailures(in: sandbox, bySeconds: 600)
        // common-auth as `pam-auth-update --enable secureroom secureroom-authsucc` writes
        // it, with pam_unix's place taken by pam_deny (a wrong password) or pam_permit.
        func commonAuth(_ password: String) -> [String] {
            [
                "auth [success=2 default=ignore] MODULE STATE nodelay",
                "auth [success=1 default=ignore] \(password)",
                "auth requisite pam_deny.so",
                "auth required pam_permit.so",
                "auth optional MODULE STATE authsucc",
            ]
        }
        try sandbox.service("pin-login", commonAuth("pam_deny.so"))
        let login = try sandbox.pam("pin-login", user: user, responses: [pin])
        XCTAssertEqual(login.code, PAMCode.success, login.process.output)
        XCTAssertEqual(try sandbox.status(user)["failures"] as? Int, 4, "the 4 old failures count for a year")
        XCTAssertTrue(login.errors.contains { $0.contains("4 failed PIN attempts") }, "\(login.errors)")
        // One attempt is left to the attacker, not five.
        XCTAssertEqual(try sandbox.pam(user: user, responses: ["5555"]).code, PAMCode.authError)
        XCTAssertEqual(try sandbox.pam(user: user, responses: ["6666"]).code, PAMCode.maxTries)
        // The password (a wrong PIN first, then pam_permit as the password module) lifts it.
        try sandbox.service("password-login", commonAuth("pam_permit.so"))
        XCTAssertEqual(try sandbox.pam("password-login", user: user, responses: []).code, PAMCode.success)
        XCTAssertEqual(try sandbox.status(user)["failures"] as? Int, 0)
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success)
    }

    /// Moves every failure in the user's lockout record `seconds` into the past, as if the
    /// attempts had been made that long ago.
    private func ageFailures(in sandbox: Sandbox, bySeconds seconds: Int) throws {
        let path = sandbox.state + "/users/\(user).lockout"
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line -> String in
            guard line.hasPrefix("failed-at: ") else { return String(line) }
            return "failed-at: "
                + line.dropFirst(11).split(separator: " ").map { String(Int($0)! - seconds) }.joined(separator: " ")
        }
        try sandbox.write(path, lines.joined(separator: "\n") + "\n", mode: 0o600)
    }

    /// Only the services the project tests as local take a PIN by default
    /// (`local_services=`): any other, such as a web console's `cockpit`, which includes
    /// common-auth and sets no PAM_RHOST, gets PAM_IGNORE without a prompt, nothing
    /// counted, and a log line naming the option. A list names the services; `*` takes
    /// every service, as before the option.
    func testOnlyTheServicesListedAsLocalTakeAPIN() throws {
        // Sandbox.fastKDF as it stood before local_services=, so that the default applies.
        let base = "argon2_memory = 256\nargon2_time = 1\nargon2_lanes = 1\nargon2_below_floor\ntpm = off\n"
        let stage = try UnprivilegedStage(sandbox: try Sandbox.enrolled(user, pin: pin, configuration: base))
        let sandbox = stage.sandbox
        let services = ["cockpit", "login", "su", "sudo", "polkit-1", "gdm-password", "kde", "swaylock"]
        for service in services {
            try sandbox.service(
                service,
                [
                    "auth [success=done ignore=ignore default=die] MODULE STATE nodelay",
                    "auth requisite pam_debug.so auth=cred_expired",
                ], module: stage.module)
        }
        func login(_ service: String, _ typed: String) throws -> (PAMTranscript, [String]) {
            let before = stage.logLines().count
            let process = try stage.run(
                as: 0, stage.bin + "/secureroom-pam-driver",
                sandbox.driverArguments(service, user: user, options: [], operations: ["auth"]),
                input: Sandbox.lines([typed]), environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"])
            usleep(200_000)
            return (PAMTranscript(process), Array(stage.logLines().dropFirst(before)))
        }

        let (ignored, log) = try login("cockpit", "1357")
        XCTAssertEqual(ignored.code, PAMCode.credentialExpired, "PAM_IGNORE: \(ignored.process.output)")
        XCTAssertEqual(ignored.prompts, [], "no prompt")
        XCTAssertTrue(
            log.contains { $0.contains("PIN not used for \"daemon\": service \"cockpit\" is not in local_services=") },
            "\(log)"
        )
        XCTAssertEqual(try sandbox.status(user)["failures"] as? Int, 0, "nothing counted")
        for service in services.dropFirst() {
            let (result, _) = try login(service, pin)
            XCTAssertEqual(result.code, PAMCode.success, "\(service) is local by default: \(result.process.output)")
        }

        try sandbox.write(sandbox.config, base + "local_services = login, cockpit\n", mode: 0o600)
        XCTAssertEqual(try login("cockpit", pin).0.code, PAMCode.success, "listed")
        XCTAssertEqual(try login("sudo", pin).0.prompts, [], "not listed")
        try sandbox.write(sandbox.config, base + "local_services = *\n", mode: 0o600)
        XCTAssertEqual(try login("cockpit", pin).0.code, PAMCode.success, "every service")
    }
}
