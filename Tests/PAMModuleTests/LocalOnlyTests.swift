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
        for (service, rhost) in [("sshd", nil), ("sshd", "127.0.0.1"), ("probe", "203.0.113.7"), ("probe", "client.example.org"),
                                 ("probe", "::ffff:198.51.100.2")] as [(String, String?)] {
            let result = try sandbox.pam(service, user: user, responses: ["1357"], options: rhost.map { ["--rhost", $0] } ?? [])
            XCTAssertEqual(result.code, PAMCode.credentialExpired, "\(service) from \(rhost ?? "-"): \(result.process.output)")
            XCTAssertEqual(result.prompts, [], "\(service) from \(rhost ?? "-")")
            XCTAssertEqual(result.errors, [])
        }
        XCTAssertEqual(try sandbox.status(user)["failures"] as? Int, 0)
    }

    /// The local host in any of its spellings is local: the PIN is asked for and works.
    func testTheLocalHostIsLocal() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin)
        var name = [CChar](repeating: 0, count: 256)
        XCTAssertEqual(gethostname(&name, 255), 0)
        let host = String(cString: name)
        for rhost in ["", "localhost", "127.0.0.1", "127.1.2.3", "::1", host, host + ".example.org"] {
            let result = try sandbox.pam(user: user, responses: [pin], options: ["--rhost", rhost])
            XCTAssertEqual(result.code, PAMCode.success, "rhost \(rhost): \(result.process.output)")
            XCTAssertEqual(result.prompts, ["PIN: "], "rhost \(rhost)")
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
        XCTAssertEqual(try sandbox.pam("sshd", user: user, responses: [pin], options: ["--rhost", "127.0.0.1"]).code,
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
        for wrong in ["1111", "2222", "3333"] { XCTAssertEqual(try sandbox.pam(user: user, responses: [wrong]).code, PAMCode.authError) }
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
}
