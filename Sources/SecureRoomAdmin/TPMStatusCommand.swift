// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import SecureRoomCommandLine
import SecureRoomCore

/// `secureroom tpm status`: whether a TPM answers, its dictionary-attack state, and how
/// many PINs are bound to it.
struct TPMStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the TPM at tpm_tcti=: its dictionary-attack counter and limits, and the PINs bound to it.",
        discussion: """
            The TPM's dictionary-attack counter is the whole chip's: every user's wrong PINs, \
            and disk encryption's, count toward max_tries. While it is in lockout, no bound PIN \
            works (the password does). With an empty lockout authorization, root can reset the \
            counter (tpm2_dictionarylockout --clear-lockout); 'secureroom tpm harden' sets one.

            JSON (--json): tcti, present, and when present: manufacturer, counter, max_tries, \
            recovery_seconds (one failure forgotten per interval), lockout_recovery_seconds, \
            in_lockout, lockout_auth_set; and bound_users, unbound_users (PINs in the state \
            directory).
            """)

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var state: StateOptions

    /// The report, as printed.
    struct Report: Encodable {
        let tcti: String
        let present: Bool
        let manufacturer: String?
        let counter: UInt32?
        let maxTries: UInt32?
        let recoverySeconds: UInt32?
        let lockoutRecoverySeconds: UInt32?
        let inLockout: Bool?
        let lockoutAuthSet: Bool?
        let boundUsers: Int
        let unboundUsers: Int

        enum CodingKeys: String, CodingKey {
            case tcti, present, manufacturer, counter
            case maxTries = "max_tries"
            case recoverySeconds = "recovery_seconds"
            case lockoutRecoverySeconds = "lockout_recovery_seconds"
            case inLockout = "in_lockout"
            case lockoutAuthSet = "lockout_auth_set"
            case boundUsers = "bound_users"
            case unboundUsers = "unbound_users"
        }

        func encode(to encoder: any Encoder) throws {
            var object = encoder.container(keyedBy: CodingKeys.self)
            try object.encode(tcti, forKey: .tcti)
            try object.encode(present, forKey: .present)
            try object.encode(manufacturer, forKey: .manufacturer)
            try object.encode(counter, forKey: .counter)
            try object.encode(maxTries, forKey: .maxTries)
            try object.encode(recoverySeconds, forKey: .recoverySeconds)
            try object.encode(lockoutRecoverySeconds, forKey: .lockoutRecoverySeconds)
            try object.encode(inLockout, forKey: .inLockout)
            try object.encode(lockoutAuthSet, forKey: .lockoutAuthSet)
            try object.encode(boundUsers, forKey: .boundUsers)
            try object.encode(unboundUsers, forKey: .unboundUsers)
        }
    }

    func run() throws {
        try requireRoot("tpm status")
        try reportingFailures {
            let store = try state.store()
            let chip = TPMChip(store.configuration)
            var bound = 0
            var unbound = 0
            for user in try store.enrolledUsers() {
                if try store.credential(for: user)?.binding != nil { bound += 1 } else { unbound += 1 }
            }
            let status: DAStatus?
            var absence = ""
            do { status = try chip.withConnection { try DAStatus.read($0) } } catch SecureRoomError.tpm(let problem) {
                status = nil
                absence = problem.description
            }
            let report = Report(
                tcti: chip.tcti, present: status != nil,
                manufacturer: status.map { $0.manufacturer.filter { $0 != "\0" } },
                counter: status?.lockoutCounter, maxTries: status?.maxAuthFail,
                recoverySeconds: status?.lockoutInterval, lockoutRecoverySeconds: status?.lockoutRecovery,
                inLockout: status?.inLockout, lockoutAuthSet: status?.lockoutAuthSet,
                boundUsers: bound, unboundUsers: unbound)
            if json {
                print(try JSONOutput.text(report))
                return
            }
            print("tpm_tcti        \(report.tcti)")
            guard let status else {
                print("TPM             none: \(absence)")
                print("PINs            \(bound) bound (unusable until it answers), \(unbound) not bound")
                return
            }
            print(
                """
                TPM             present, manufacturer \(report.manufacturer ?? "?")
                DA counter      \(status.lockoutCounter) of \(status.maxAuthFail) failed authorizations\
                \(status.inLockout ? " (IN LOCKOUT: no bound PIN works)" : "")
                recovery        one failure forgotten every \(status.lockoutInterval) s
                lockout auth    \(status.lockoutAuthSet ? "set" : "empty: root can reset the counter ('secureroom "
                    + "tpm harden' sets one)")
                PINs            \(bound) bound, \(unbound) not bound
                """)
            let deny = store.configuration.lockout.deny
            if status.maxAuthFail <= deny {
                printError(
                    "warning: the chip locks after \(status.maxAuthFail) failures, not more than deny=\(deny): one "
                        + "user's "
                        + "wrong PINs can lock it for everyone; 'secureroom tpm harden' raises it")
            }
        }
    }
}
