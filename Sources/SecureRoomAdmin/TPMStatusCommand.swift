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
        abstract: "Show the TPM at tpm_tcti=: whether it is hardened, its counters, and the PINs bound to it.",
        discussion: """
            Each bound PIN has its own counter in the chip (an NV index); its wrong PINs count \
            there and nowhere else. Until the chip is hardened (owner and lockout \
            authorizations set by 'secureroom tpm harden'), root can remove such a counter and \
            define one in its place, and so guess bound PINs without limit; an open platform \
            hierarchy (firmware that does not close it) allows the same. The dictionary-attack \
            counter is the whole chip's (disk encryption, PINs bound by SecureRoom 0.2).

            JSON (--json): tcti, present, and when present: manufacturer, hardened (owner and \
            lockout authorizations set), owner_auth_set, lockout_auth_set, platform_open, counter, \
            max_tries, recovery_seconds (one failure forgotten per interval), \
            lockout_recovery_seconds, in_lockout, pin_indices (SecureRoom's indices defined on the \
            chip: bound PINs, the decoys', and those of PINs replaced on a hardened chip), \
            pin_indices_unnamed (those no record names: 'secureroom tpm prune' frees them); and \
            bound_users, unbound_users (PINs in the state directory).
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
        let ownerAuthSet: Bool?
        let platformOpen: Bool?
        let pinIndices: Int?
        let unnamedPinIndices: Int?
        let boundUsers: Int
        let unboundUsers: Int

        enum CodingKeys: String, CodingKey {
            case tcti, present, manufacturer, counter
            case maxTries = "max_tries"
            case recoverySeconds = "recovery_seconds"
            case lockoutRecoverySeconds = "lockout_recovery_seconds"
            case inLockout = "in_lockout"
            case lockoutAuthSet = "lockout_auth_set"
            case ownerAuthSet = "owner_auth_set"
            case hardened
            case platformOpen = "platform_open"
            case pinIndices = "pin_indices"
            case unnamedPinIndices = "pin_indices_unnamed"
            case boundUsers = "bound_users"
            case unboundUsers = "unbound_users"
        }

        func encode(to encoder: any Encoder) throws {
            var object = encoder.container(keyedBy: CodingKeys.self)
            try object.encode(tcti, forKey: .tcti)
            try object.encode(present, forKey: .present)
            try object.encode(manufacturer, forKey: .manufacturer)
            try object.encode(ownerAuthSet.flatMap { owner in lockoutAuthSet.map { owner && $0 } }, forKey: .hardened)
            try object.encode(ownerAuthSet, forKey: .ownerAuthSet)
            try object.encode(platformOpen, forKey: .platformOpen)
            try object.encode(pinIndices, forKey: .pinIndices)
            try object.encode(unnamedPinIndices, forKey: .unnamedPinIndices)
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
            // The indices the records name, from the same read: the others are replaced PINs'
            // on a hardened chip (`tpm prune`).
            var named: Set<UInt32> = []
            for user in try store.enrolledUsers() {
                let binding = try store.credential(for: user)?.binding
                if binding != nil { bound += 1 } else { unbound += 1 }
                if case .pinIndex(let counted)? = binding { named.insert(counted.index) }
            }
            if case .pinIndex(let decoy)? = try store.tpmDecoy() { named.insert(decoy.index) }
            let chipState: (status: DAStatus, platformOpen: Bool, indices: [UInt32])?
            var absence = ""
            do {
                chipState = try chip.withConnection { connection in
                    (
                        try DAStatus.read(connection),
                        try OwnerHierarchy(connection: connection).platformHierarchyIsOpen(),
                        try connection.nvIndices(in: PinIndexBinding.handles)
                    )
                }
            } catch SecureRoomError.tpm(let problem) {
                chipState = nil
                absence = problem.description
            }
            let status = chipState?.status
            let report = Report(
                tcti: chip.tcti, present: status != nil,
                manufacturer: status.map { $0.manufacturer.filter { $0 != "\0" } },
                counter: status?.lockoutCounter, maxTries: status?.maxAuthFail,
                recoverySeconds: status?.lockoutInterval, lockoutRecoverySeconds: status?.lockoutRecovery,
                inLockout: status?.inLockout, lockoutAuthSet: status?.lockoutAuthSet,
                ownerAuthSet: status?.ownerAuthSet, platformOpen: chipState?.platformOpen,
                pinIndices: chipState?.indices.count,
                unnamedPinIndices: chipState?.indices.filter { !named.contains($0) }.count, boundUsers: bound,
                unboundUsers: unbound)
            if json {
                print(try JSONOutput.text(report))
                return
            }
            print("tpm_tcti        \(report.tcti)")
            guard let chipState, let status else {
                print("TPM             none: \(absence)")
                print("PINs            \(bound) bound (unusable until it answers), \(unbound) not bound")
                return
            }
            let hardened = status.ownerAuthSet && status.lockoutAuthSet
            print(
                """
                TPM             present, manufacturer \(report.manufacturer ?? "?")
                hardened        \(hardened ? "yes: owner and lockout authorizations set" : "NO")
                platform        \(chipState.platformOpen ? "OPEN: its firmware did not close it" : "closed")
                PINs            \(bound) bound, \(unbound) not bound; \(report.pinIndices ?? 0) PIN counters on the \
                chip, \(report.unnamedPinIndices ?? 0) of replaced PINs ('secureroom tpm prune' frees them)
                DA counter      \(status.lockoutCounter) of \(status.maxAuthFail) failed authorizations\
                \(status.inLockout ? " (IN LOCKOUT)" : ""), one forgotten every \(status.lockoutInterval) s
                """)
            if !hardened {
                printError(chipNotHardened)
            }
            if chipState.platformOpen {
                printError(
                    "warning: the platform hierarchy is open: whoever can use it can remove bound PINs' counters "
                        + "(on a PC, firmware closes it at boot; check its TPM settings)")
            }
        }
    }
}
