// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

@testable import SecureRoomCore

final class ConfigurationTests: XCTestCase {
    private func load(_ file: String?, _ arguments: [String]) throws -> Configuration {
        try Configuration.load(arguments: arguments) { path in
            path == Configuration.defaultConfigPath ? file.map { Array($0.utf8) } : nil
        }
    }

    func testDefaults() throws {
        let configuration = try load(nil, [])
        XCTAssertEqual(configuration.directory, "/var/lib/secureroom")
        XCTAssertEqual(configuration.effectivePepperPath, "/var/lib/secureroom/pepper")
        XCTAssertEqual(configuration.format.digits, 4)
        XCTAssertEqual(configuration.lockout, .defaults)
        XCTAssertEqual(configuration.kdf, .defaults)
        XCTAssertEqual(configuration.noPIN, .ignore)
        XCTAssertFalse(configuration.evenDenyRoot)
        XCTAssertEqual(configuration.remote, .deny, "the PIN is local by default")
        XCTAssertEqual(configuration.remoteServices, ["sshd"])
        XCTAssertFalse(configuration.authSucceeded)
    }

    func testRemoteOptions() throws {
        let configuration = try load("remote = allow\nremote_services = sshd, cockpit ,xrdp\n", ["authsucc"])
        XCTAssertEqual(configuration.remote, .allow)
        XCTAssertEqual(configuration.remoteServices, ["sshd", "cockpit", "xrdp"])
        XCTAssertTrue(configuration.authSucceeded)
        XCTAssertEqual(try load(nil, ["remote_services="]).remoteServices, [], "an empty list is allowed")
    }

    func testFileThenArgumentsWhichWin() throws {
        let file = """
            # comment
            deny = 5   # trailing comment
            schedule = 3:30s
            digits=6
            nodelay
            pepper = /etc/secureroom/pepper
            """
        let configuration = try load(file, ["deny=7", "dir=/srv/sr", "no_such_key", "also_unknown=1"])
        XCTAssertEqual(configuration.lockout.deny, 7)
        XCTAssertEqual(configuration.lockout.schedule, [LockoutPolicy.Step(failures: 3, delay: 30)])
        XCTAssertEqual(configuration.format.digits, 6)
        XCTAssertTrue(configuration.noDelay)
        XCTAssertEqual(configuration.directory, "/srv/sr")
        XCTAssertEqual(configuration.effectivePepperPath, "/etc/secureroom/pepper")
        XCTAssertEqual(configuration.unknownKeys, ["no_such_key", "also_unknown"])
    }

    func testBadValuesAreErrorsThatNameTheLine() throws {
        XCTAssertThrowsError(try load("deny = 5\ndigits = four\n", [])) { error in
            XCTAssertEqual(
                "\(error)",
                "invalid configuration: /etc/security/secureroom.conf:2: digits=\"four\" must be a number in 4...12")
        }
        for bad in [
            "digits=3", "deny=101", "nopin=sometimes", "dir=", "dir=relative", "nodelay=1", "argon2_lanes=0",
            "argon2_memory=99999999999", "schedule=5:1m,4:1m", "remote=maybe", "remote=", "remote_services",
            "authsucc=yes",
        ] {
            XCTAssertThrowsError(try load(nil, [bad]), bad)
        }
        XCTAssertThrowsError(try load(nil, ["conf=/nonexistent/secureroom.conf"]), "a named config file must exist")
        for (bad, message) in [
            ("nopin=sometimes", "nopin must be ignore or fail"), ("remote=maybe", "remote must be deny or allow"),
            ("tpm=yes", "tpm must be off, auto or required"), ("tpm=", "tpm needs a value"),
            ("tpm_tcti=", "tpm_tcti needs a value"),
        ] {
            XCTAssertThrowsError(try load(nil, [bad]), bad) { XCTAssertTrue("\($0)".hasSuffix(message), "\($0)") }
        }
    }

    /// argon2 costs below the floor (19 MiB, and memory × passes of 19 MiB × 2) are refused
    /// with a message that names it, unless `argon2_below_floor` (test systems) allows them;
    /// one pass over 38 MiB or more meets it (a configuration an older `tune` proposed).
    func testArgon2CostsBelowTheFloorAreRefusedUnlessAllowed() throws {
        for bad in [
            ["argon2_memory=19455"], ["argon2_memory=38911", "argon2_time=1"], ["argon2_memory=256", "argon2_time=1"],
        ] {
            XCTAssertThrowsError(try load(nil, bad), "\(bad)") {
                XCTAssertTrue(
                    "\($0)".contains(
                        "are below the floor of 19456 KiB (19 MiB) and 2 passes (memory at least 19456 KiB, "
                            + "memory × passes at least 38912), OWASP's minimum"), "\($0)")
            }
        }
        XCTAssertEqual(try load(nil, ["argon2_memory=38912", "argon2_time=1"]).kdf.iterations, 1)
        XCTAssertEqual(try load(nil, ["argon2_time=1"]).kdf.memoryKiB, 65_536, "64 MiB × 1 pass")
        let floor = try load("argon2_memory = 19456\nargon2_time = 2\n", ["argon2_lanes=1"])
        XCTAssertEqual(floor.kdf, KDFParameters.floor)
        XCTAssertTrue(floor.kdf.meetsFloor)
        XCTAssertFalse(floor.allowsBelowFloor)
        let cheap = try load("argon2_memory = 256\nargon2_time = 1\nargon2_below_floor\n", ["argon2_lanes=1"])
        XCTAssertTrue(cheap.allowsBelowFloor)
        XCTAssertFalse(cheap.kdf.meetsFloor)
        XCTAssertThrowsError(try load(nil, ["argon2_below_floor=yes"]), "a flag takes no value")
        XCTAssertTrue(KDFParameters.defaults.meetsFloor, "the defaults are above the floor")
    }

    /// Every key the parser knows (each `case "key"` of `Configuration.apply`) is documented
    /// in the shipped pam/secureroom.conf as a commented-out `# key = default` or `# key`
    /// line, and that file, uncommented line by line, has no key the parser does not know.
    func testTheShippedConfigDocumentsEveryKey() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let parsed = try ConfigurationKeys.parsed()
        XCTAssertGreaterThanOrEqual(parsed.count, 30, "the parser's keys were not found: \(parsed.sorted())")
        let shipped = try String(contentsOf: root.appendingPathComponent("pam/secureroom.conf"), encoding: .utf8)
        let documented = Set(
            shipped.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("# ") else { return nil }
                let words = line.dropFirst(2).split(separator: " ")
                guard let key = words.first, words.count == 1 || (words.count >= 2 && words[1] == "=") else {
                    return nil
                }
                return key.allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "_" }) ? String(key) : nil
            })
        XCTAssertEqual(parsed.subtracting(documented).sorted(), [], "parsed but not documented in pam/secureroom.conf")
        XCTAssertEqual(documented.subtracting(parsed).sorted(), [], "documented but not parsed")
    }

    func testEnrolmentOptions() throws {
        let defaults = try load(nil, [])
        XCTAssertEqual(defaults.enrol, .off)
        XCTAssertEqual(defaults.enrolSnooze, 7 * 86_400)
        XCTAssertNil(defaults.enrolGroup)
        XCTAssertFalse(defaults.enrolVault)
        XCTAssertFalse(defaults.onlyExpired)
        let set = try load(
            "enrol = offer\nenrol_snooze = 12h\nenrol_group = pinusers\nenrol_vault\n",
            ["only_expired", "enrol=require"])
        XCTAssertEqual(set.enrol, .require, "the argument wins")
        XCTAssertEqual(set.enrolSnooze, 12 * 3600)
        XCTAssertEqual(set.enrolGroup, "pinusers")
        XCTAssertTrue(set.enrolVault)
        XCTAssertTrue(set.onlyExpired)
        XCTAssertEqual(try load(nil, ["enrol_snooze=0"]).enrolSnooze, 0)
        for (bad, message) in [
            ("enrol=yes", "enrol must be off, offer or require"),
            ("enrol_snooze=366d", "must be a duration from 0s to 365d"),
            ("enrol_snooze=soon", "must be a duration from 0s to 365d"),
            ("enrol_group=a:b", "is not a group name"), ("enrol_vault=1", "enrol_vault takes no value"),
        ] {
            XCTAssertThrowsError(try load(nil, [bad]), bad) { XCTAssertTrue("\($0)".hasSuffix(message), "\($0)") }
        }
    }

    func testTPMOptions() throws {
        let defaults = try load(nil, [])
        XCTAssertEqual(defaults.tpm, .auto, "new PINs bound when a TPM answers")
        XCTAssertEqual(defaults.tpmTCTI, "device:/dev/tpmrm0", "the kernel's resource manager")
        let configured = try load("tpm = required\ntpm_tcti = swtpm:host=127.0.0.1,port=2321\n", ["tpm=off"])
        XCTAssertEqual(configured.tpm, .off, "the module argument wins")
        XCTAssertEqual(configured.tpmTCTI, "swtpm:host=127.0.0.1,port=2321")
        XCTAssertEqual(defaults.tpmPCRs, [], "no PCRs unless asked")
        XCTAssertEqual(try load("tpm_pcrs = 0, 7\n", []).tpmPCRs, [0, 7])
        XCTAssertEqual(try load("tpm_pcrs = 7\n", ["tpm_pcrs="]).tpmPCRs, [], "empty: none")
        for bad in [
            "tpm_pcrs=7,0", "tpm_pcrs=7,7", "tpm_pcrs=24", "tpm_pcrs=x", "tpm_pcrs=0,1,2,3,4,5,6,7,8", "tpm_pcrs",
        ] {
            XCTAssertThrowsError(try load(nil, [bad]), bad) {
                XCTAssertTrue("\($0)".contains("tpm_pcrs must"), "\($0)")
            }
        }
    }
}
