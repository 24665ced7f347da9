// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import SecureRoomCommandLine
import SecureRoomCore

/// `secureroom policy check`: which PINs the policy refuses.
struct PolicyCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Read PINs from standard input, one per line; print those the policy rejects and why.",
        discussion: """
            Each rejected line is printed as "PIN: reason". Exit status 0 when every PIN is \
            acceptable, 1 when any is rejected (including lines that are not PINs).
            """)

    @OptionGroup var state: StateOptions

    func run() throws {
        var rejected = 0
        try reportingFailures {
            let configuration = try state.load()
            let policy = PINPolicy(blocklist: try Blocklist.load(configuration.blocklist))
            while let line = readLine(strippingNewline: true) {
                let reasons: [String]
                do {
                    let pin = try Array(line.utf8).withUnsafeBytes { try configuration.format.pin(from: $0) }
                    reasons = policy.rejections(of: pin).map(\.description)
                } catch SecureRoomError.malformedPIN(let digits) {
                    reasons = ["not \(digits) ASCII digits"]
                }
                if !reasons.isEmpty {
                    rejected += 1
                    print("\(line.prefix(64)): \(reasons.joined(separator: "; "))")
                }
            }
        }
        if rejected > 0 { throw ExitStatus.failure }
    }
}
