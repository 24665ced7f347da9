// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import SecureRoomCommandLine
import SecureRoomCore

/// `secureroom policy show`: the policy in effect.
struct PolicyShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show the policy in effect (config file and defaults).",
        discussion: """
            Fields: digits, deny (failures that disable the PIN), schedule (FAILURES:DELAY \
            pairs), blocklist (source) and blocklist_size, argon2 parameters for new PINs, \
            nopin, even_deny_root.
            """)

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var state: StateOptions

    func run() throws {
        try reportingFailures {
            let configuration = try state.load()
            let blocklist = try Blocklist.load(configuration.blocklist)
            let schedule = configuration.lockout.schedule
            let kdf = configuration.kdf
            if json {
                print(try JSONOutput.text(PolicyReport(configuration, blocklist: blocklist)))
                return
            }
            print(
                """
                digits          \(configuration.format.digits)
                deny            \(configuration.lockout.deny) consecutive failures disable the PIN
                schedule        \(schedule.isEmpty ? "none" : LockoutPolicy.render(schedule))
                blocklist       \(blocklist.source) (\(blocklist.count) PINs)
                constant steps  refused (1111, 1234, 1357, 9876, ...)
                argon2id        m=\(kdf.memoryKiB) KiB, t=\(kdf.iterations), p=\(kdf.lanes) (new PINs)
                nopin           \(configuration.noPIN.rawValue)
                even_deny_root  \(configuration.evenDenyRoot ? "yes" : "no")
                """)
        }
    }
}

/// The policy as `policy show --json` prints it.
struct PolicyReport: Encodable {
    /// One step of the delay schedule.
    struct Step: Encodable {
        let failures: Int
        let delaySeconds: Int64

        enum CodingKeys: String, CodingKey {
            case failures
            case delaySeconds = "delay_seconds"
        }
    }

    /// argon2id's parameters for new PINs.
    struct Argon2: Encodable {
        let memoryKiB: UInt32
        let iterations: UInt32
        let lanes: UInt32

        enum CodingKeys: String, CodingKey {
            case memoryKiB = "memory_kib"
            case iterations, lanes
        }
    }

    let digits: Int
    let deny: Int
    let schedule: [Step]
    let blocklist: String
    let blocklistSize: Int
    let argon2: Argon2
    let nopin: String
    let evenDenyRoot: Bool

    enum CodingKeys: String, CodingKey {
        case digits, deny, schedule, blocklist, argon2, nopin
        case blocklistSize = "blocklist_size"
        case evenDenyRoot = "even_deny_root"
    }

    init(_ configuration: Configuration, blocklist: Blocklist) {
        digits = configuration.format.digits
        deny = configuration.lockout.deny
        schedule = configuration.lockout.schedule.map { Step(failures: $0.failures, delaySeconds: $0.delay) }
        self.blocklist = blocklist.source
        blocklistSize = blocklist.count
        argon2 = Argon2(
            memoryKiB: configuration.kdf.memoryKiB, iterations: configuration.kdf.iterations,
            lanes: configuration.kdf.lanes)
        nopin = configuration.noPIN.rawValue
        evenDenyRoot = configuration.evenDenyRoot
    }
}
