// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// pam_secureroom.so's auth group through the real libpam (pam_start_confdir), with
/// real records made by the real admin tool.
final class AuthenticationTests: XCTestCase {
    // Accounts that exist on every Debian system; each test has its own state directory.
    let user = "daemon"
    let pin = "7391"

    func testRightPINSucceedsWithOnePrompt() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin)
        let result = try sandbox.pam(user: user, responses: [pin])
        XCTAssertEqual(result.code, PAMCode.success)
        XCTAssertEqual(result.prompts, ["PIN: "])
        XCTAssertEqual(result.errors, [])
    }

    /// The module as scripts/install installs it: stripped (debug info in a file of its
    /// own), exporting the six entry points, and working the same.
    func testTheStrippedModuleWorksAsInstalled() throws {
        let stripped = Artifacts.releaseDirectory + "/stripped/pam_secureroom.so"
        let sandbox = try Sandbox()
        try sandbox.setPIN(user, pin: pin)
        try sandbox.probeService(module: stripped)
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success)
        XCTAssertEqual(try sandbox.pam(user: user, responses: ["1111"]).code, PAMCode.authError)
        let symbols = try runProgram("/usr/bin/nm", [stripped])
        XCTAssertTrue(symbols.errorOutput.contains("no symbols"), "not stripped: \(symbols.output.prefix(200))")
    }

    func testWrongPINFailsCountsAndSaysWhatIsLeft() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin)
        let result = try sandbox.pam(user: user, responses: ["7392"])
        XCTAssertEqual(result.code, PAMCode.authError)
        XCTAssertEqual(result.errors, ["Incorrect PIN. 4 attempts left before a 1-minute delay."])
        XCTAssertEqual(try sandbox.status(user)["failures"] as? Int, 1)
    }

    func testMalformedPINsAreRefusedWithoutCounting() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin)
        let inputs = [
            "739", "73911", "73a1", "", " 7391", "١٢٣٤", "１２３４", "+739",
            String(repeating: "7", count: 5000),
        ]
        for input in inputs {
            let result = try sandbox.pam(user: user, responses: [input])
            XCTAssertEqual(result.code, PAMCode.authError, "input \(input.prefix(10))")
            XCTAssertEqual(result.errors, ["The PIN must be exactly 4 digits (0-9)."], "input \(input.prefix(10))")
        }
        XCTAssertEqual(try sandbox.status(user)["failures"] as? Int, 0)
    }

    func testRepeatingTheSameWrongPINDoesNotBurnAnAttempt() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin)
        _ = try sandbox.pam(user: user, responses: ["1357"])
        let repeated = try sandbox.pam(user: user, responses: ["1357"])
        XCTAssertEqual(repeated.code, PAMCode.authError)
        XCTAssertEqual(repeated.errors.first?.hasPrefix("Incorrect PIN (already tried; not counted again)."), true)
        XCTAssertEqual(try sandbox.status(user)["failures"] as? Int, 1)
    }

    func testDelayRefusesEvenTheRightPINAndSaysHowLong() throws {
        let sandbox = try Sandbox.enrolled(
            user, pin: pin, configuration: Sandbox.fastKDF + "deny = 5\nschedule = 2:1h\n")
        XCTAssertEqual(
            try sandbox.pam(user: user, responses: ["1111"]).errors,
            ["Incorrect PIN. 1 attempt left before a 1-hour delay."])
        XCTAssertEqual(
            try sandbox.pam(user: user, responses: ["2222"]).errors,
            ["Incorrect PIN. Too many failed attempts. Try again in 1 h."])
        let locked = try sandbox.pam(user: user, responses: [pin])
        XCTAssertEqual(locked.code, PAMCode.maxTries)
        XCTAssertEqual(locked.prompts, [], "a locked PIN is refused before asking")
        XCTAssertEqual(locked.errors.count, 1)
        XCTAssertTrue(
            ["Too many failed attempts. Try again in 1 h.", "Too many failed attempts. Try again in 59 min 59 s."]
                .contains(locked.errors[0]), locked.errors[0])
        let status = try sandbox.status(user)
        XCTAssertEqual(status["state"] as? String, "delayed")
        XCTAssertNotNil(status["locked_until"] as? String)
    }

    func testCapDisablesThePINUntilAnAdministratorResetsIt() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin, configuration: Sandbox.fastKDF + "deny = 3\nschedule =\n")
        XCTAssertEqual(
            try sandbox.pam(user: user, responses: ["1111"]).errors,
            ["Incorrect PIN. 2 attempts left before the PIN is disabled."])
        _ = try sandbox.pam(user: user, responses: ["2222"])
        XCTAssertEqual(
            try sandbox.pam(user: user, responses: ["3333"]).errors,
            ["Incorrect PIN. PIN disabled after 3 failed attempts; ask an administrator."])
        let refused = try sandbox.pam(user: user, responses: [pin])
        XCTAssertEqual(refused.code, PAMCode.maxTries)
        XCTAssertEqual(refused.errors, ["PIN disabled after 3 failed attempts; ask an administrator."])
        XCTAssertEqual(try sandbox.status(user)["disabled"] as? Bool, true)

        XCTAssertEqual(try sandbox.cli(["reset", user]).status, 0)
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success)
        XCTAssertEqual(try sandbox.status(user)["failures"] as? Int, 0)
    }

    /// A record whose argon2 cost is below the floor (made while the configuration allowed
    /// it) is refused before the prompt once the configuration no longer does, counts
    /// nothing, and works again when an administrator sets the PIN (at the floor's cost).
    func testARecordBelowTheArgon2FloorIsRefusedUntilItIsSetAgain() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin)
        // The floor: 19 MiB, 2 passes (KDFParameters.floor).
        try sandbox.write(
            sandbox.config, "argon2_memory = 19456\nargon2_time = 2\nargon2_lanes = 1\ntpm = off\nlocal_services = *\n",
            mode: 0o600)
        XCTAssertEqual(try sandbox.status(user)["argon2_below_floor"] as? Bool, true)
        let refused = try sandbox.pam(user: user, responses: [pin])
        XCTAssertEqual(refused.code, PAMCode.authInfoUnavailable, "the stack goes on to the password")
        XCTAssertEqual(refused.prompts, [], "refused before asking")
        XCTAssertEqual(try sandbox.status(user)["failures"] as? Int, 0)
        let wide = try sandbox.cli(["status", "--wide"])
        XCTAssertTrue(wide.output.contains("m=256,t=1,p=1 (below the floor: set a new PIN)"), wide.output)

        try sandbox.setPIN(user, pin: pin)
        XCTAssertEqual(try sandbox.status(user)["argon2"] as? String, "m=19456,t=2,p=1")
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success)
    }

    /// After digits= changes, a PIN of the old length cannot be typed: the module says so
    /// instead of asking (nothing counted, the stack goes on to the password), status shows
    /// its length, and a PIN of the new length works.
    func testAPINOfAnotherLengthThanDigitsIsRefusedBeforeThePrompt() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin)
        try sandbox.write(sandbox.config, Sandbox.fastKDF + "digits = 6\n", mode: 0o600)
        XCTAssertRefusedBeforeAsking(
            try sandbox.pam(user: user, responses: [pin]),
            errors: [
                "Your PIN has 4 digits, but this computer now asks for 6: use your password, then set a new PIN "
                    + "with 'secureroom enrol --replace'."
            ])
        let status = try sandbox.status(user)
        XCTAssertEqual(status["failures"] as? Int, 0)
        XCTAssertEqual(status["digits"] as? Int, 4)
        let table = try sandbox.cli(["status"])
        XCTAssertTrue(table.output.contains("\(user)") && table.output.contains("4 digits"), table.output)

        try sandbox.setPIN(user, pin: "482915")
        XCTAssertEqual(try sandbox.status(user)["digits"] as? Int, 6)
        XCTAssertEqual(try sandbox.pam(user: user, responses: ["482915"]).code, PAMCode.success)
    }

    func testSuccessClearsTheCount() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin)
        _ = try sandbox.pam(user: user, responses: ["1111"])
        _ = try sandbox.pam(user: user, responses: ["2222"])
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success)
        let status = try sandbox.status(user)
        XCTAssertEqual(status["failures"] as? Int, 0)
        XCTAssertNotNil(status["last_success"] as? String)
    }

    func testUserWithoutPINIsIgnoredWithoutAPrompt() throws {
        let sandbox = try Sandbox()
        try sandbox.probeService()
        let result = try sandbox.pam(user: "bin", responses: [pin])
        XCTAssertEqual(result.code, PAMCode.credentialExpired, "PAM_IGNORE falls through to the next module")
        XCTAssertEqual(result.prompts, [])
    }

    func testUserWithoutPINFailsLikeAWrongPINWithNopinFail() throws {
        let sandbox = try Sandbox()
        try sandbox.setPIN(user, pin: pin)
        try sandbox.probeService(arguments: "nopin=fail")
        func firstWrongPIN(_ name: String) throws -> PAMTranscript {
            try sandbox.forgetDecoySlots()
            return try sandbox.pam(user: name, responses: ["1111"])
        }
        let enrolledWrong = try sandbox.pam(user: user, responses: ["1111"])
        let noPIN = try firstWrongPIN("bin")
        let unknown = try firstWrongPIN("srnosuchuser")
        XCTAssertEqual(noPIN.code, PAMCode.authError)
        XCTAssertEqual(unknown.code, PAMCode.authError, "the same code as a wrong PIN: no enumeration by return code")
        // Same prompt and same message: no enumeration by what the user sees.
        XCTAssertEqual(noPIN.prompts, enrolledWrong.prompts)
        XCTAssertEqual(unknown.prompts, enrolledWrong.prompts)
        XCTAssertEqual(noPIN.errors, enrolledWrong.errors)
        XCTAssertEqual(unknown.errors, enrolledWrong.errors)
    }

    /// Regression (timing item, 1.09–1.10 in CI): a wrong PIN costs an enrolled user two
    /// fsync'd tally writes; a user without a PIN and an unknown name now cost the same
    /// writes, to a decoy slot (one of 256, `.decoy-XX`) that is not a user: nothing per name.
    func testUsersWithoutPINCostTheSameWritesToADecoy() throws {
        let sandbox = try Sandbox()
        try sandbox.setPIN(user, pin: pin)
        try sandbox.probeService(arguments: "nopin=fail")
        let users = sandbox.state + "/users"
        for name in ["bin", "srnosuchuser", "sys", "srnosuchuser2"] {
            _ = try sandbox.pam(user: name, responses: ["1111"])
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: users).sorted()
        let slots = names.filter { $0.range(of: #"^\.decoy-[0-9a-f]{2}$"#, options: .regularExpression) != nil }
        XCTAssertEqual(
            names.filter { !slots.contains($0) },
            [".decoy.lock", "daemon.credential", "daemon.lock", "daemon.lockout"],
            "nothing per name but a decoy slot")
        XCTAssertTrue((1...4).contains(slots.count), "\(names)")
        for slot in slots {
            let decoy = try FileManager.default.attributesOfItem(atPath: users + "/" + slot)
            XCTAssertEqual(decoy[.posixPermissions] as? Int, 0o600)
            XCTAssertEqual(decoy[.ownerAccountID] as? Int, 0)
        }
        let everyone = try sandbox.cli(["status", "--json"])
        XCTAssertEqual(everyone.status, 0, everyone.errorOutput)
        XCTAssertFalse(everyone.output.contains("decoy"), everyone.output)
    }

    func testUnknownUserAndOddNamesAreUnknown() throws {
        let sandbox = try Sandbox()
        try sandbox.probeService()
        for name in ["srnosuchuser", "../etc", "a/b", String(repeating: "x", count: 300), "-rf", "bad name", ".hidden"]
        {
            let result = try sandbox.pam(user: name, responses: [pin])
            XCTAssertEqual(result.code, PAMCode.userUnknown, "user \(name.prefix(20))")
            XCTAssertEqual(result.prompts, [])
        }
    }

    func testRootIsExemptUnlessEvenDenyRoot() throws {
        let sandbox = try Sandbox()
        try sandbox.setPIN("root", pin: pin)
        try sandbox.probeService()
        XCTAssertEqual(try sandbox.pam(user: "root", responses: [pin]).code, PAMCode.credentialExpired)
        try sandbox.probeService(arguments: "even_deny_root")
        XCTAssertEqual(try sandbox.pam(user: "root", responses: [pin]).code, PAMCode.success)
        XCTAssertEqual(try sandbox.pam(user: "root", responses: ["1111"]).code, PAMCode.authError)
        XCTAssertEqual(try sandbox.status("root")["failures"] as? Int, 1)
    }

    func testFailureDelayIsRequestedUnlessNodelay() throws {
        let sandbox = try Sandbox()
        try sandbox.setPIN(user, pin: pin)
        try sandbox.service("delayed", ["auth required MODULE STATE"])
        let delayed = try sandbox.pam("delayed", user: user, responses: ["1111"])
        XCTAssertEqual(delayed.code, PAMCode.authError)
        XCTAssertGreaterThanOrEqual(delayed.failureDelays.max() ?? 0, 1_000_000, "about 2 s, randomised by libpam")
        try sandbox.probeService()
        XCTAssertEqual(try sandbox.pam(user: user, responses: ["2222"]).failureDelays.max() ?? 0, 0)
    }

    func testSilentSuppressesMessages() throws {
        let sandbox = try Sandbox()
        try sandbox.setPIN(user, pin: pin)
        try sandbox.probeService(arguments: "silent")
        let result = try sandbox.pam(user: user, responses: ["1111"])
        XCTAssertEqual(result.code, PAMCode.authError)
        XCTAssertEqual(result.errors, [])
        try sandbox.probeService()
        let flagged = try sandbox.pam(user: user, responses: ["2222"], silent: true)
        XCTAssertEqual(flagged.errors, [], "PAM_SILENT from the application")
    }

    func testConversationFailureIsConvErr() throws {
        let sandbox = try Sandbox.enrolled(user, pin: pin)
        let result = try sandbox.pam(user: user, responses: [])
        XCTAssertEqual(result.code, PAMCode.conversationError)
        XCTAssertEqual(try sandbox.status(user)["failures"] as? Int, 0)
    }

    func testUseFirstPassTakesTheEarlierModulesToken() throws {
        let sandbox = try Sandbox()
        try sandbox.setPIN(user, pin: pin)
        let setItems = "/usr/lib/x86_64-linux-gnu/pam_wrapper/pam_set_items.so"
        try sandbox.service(
            "first",
            [
                "auth optional \(setItems)",
                "auth [success=done ignore=ignore default=die] MODULE STATE nodelay use_first_pass",
                "auth requisite pam_debug.so auth=cred_expired",
            ])
        let right = try sandbox.pam("first", user: user, environment: ["PAM_AUTHTOK": pin])
        XCTAssertEqual(right.code, PAMCode.success)
        XCTAssertEqual(right.prompts, [])
        let wrong = try sandbox.pam("first", user: user, environment: ["PAM_AUTHTOK": "1111"])
        XCTAssertEqual(wrong.code, PAMCode.authError)
        XCTAssertEqual(wrong.prompts, [])
        let none = try sandbox.pam("first", user: user, responses: [pin])
        XCTAssertEqual(none.code, PAMCode.authError, "use_first_pass never prompts")
        XCTAssertEqual(none.prompts, [])
    }

    func testTryFirstPassPromptsWhenThereIsNoToken() throws {
        let sandbox = try Sandbox()
        try sandbox.setPIN(user, pin: pin)
        try sandbox.probeService(arguments: "try_first_pass")
        let result = try sandbox.pam(user: user, responses: [pin])
        XCTAssertEqual(result.code, PAMCode.success)
        XCTAssertEqual(result.prompts, ["PIN: "])
    }

    func testDigitsOptionChangesTheFormat() throws {
        let sandbox = try Sandbox(configuration: Sandbox.fastKDF + "digits = 6\n")
        try sandbox.setPIN(user, pin: "739164")
        try sandbox.service("six", ["auth [success=done ignore=ignore default=die] MODULE STATE nodelay digits=6"])
        XCTAssertEqual(try sandbox.pam("six", user: user, responses: ["739164"]).code, PAMCode.success)
        XCTAssertEqual(
            try sandbox.pam("six", user: user, responses: ["7391"]).errors,
            ["The PIN must be exactly 6 digits (0-9)."])
    }

    func testBadOptionValueIsServiceErrorButUnknownKeyIsNot() throws {
        let sandbox = try Sandbox()
        try sandbox.setPIN(user, pin: pin)
        for bad in ["digits=abc", "digits=3", "deny=0", "schedule=5", "nopin=maybe", "dir=relative", "nodelay=yes"] {
            try sandbox.probeService(arguments: bad)
            XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.serviceError, bad)
        }
        try sandbox.probeService(arguments: "no_such_option=1")
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.success)
    }

    func testConfigFileIsReadAndArgumentsWin() throws {
        let sandbox = try Sandbox()
        try sandbox.setPIN(user, pin: pin)
        try sandbox.write(
            sandbox.root + "/module.conf", "deny = 2\nschedule =\nargon2_below_floor\nlocal_services = *\n", mode: 0o644
        )
        try sandbox.probeService(arguments: "conf=\(sandbox.root)/module.conf")
        _ = try sandbox.pam(user: user, responses: ["1111"])
        XCTAssertEqual(
            try sandbox.pam(user: user, responses: ["2222"]).errors,
            ["Incorrect PIN. PIN disabled after 2 failed attempts; ask an administrator."])
        try sandbox.cli(["reset", user])
        try sandbox.probeService(arguments: "conf=\(sandbox.root)/module.conf deny=5")
        XCTAssertEqual(
            try sandbox.pam(user: user, responses: ["3333"]).errors,
            ["Incorrect PIN. 4 attempts left before the PIN is disabled."])
        // A config file others can write is refused.
        try sandbox.write(sandbox.root + "/module.conf", "deny = 2\n", mode: 0o666)
        XCTAssertEqual(try sandbox.pam(user: user, responses: [pin]).code, PAMCode.authInfoUnavailable)
    }
}
