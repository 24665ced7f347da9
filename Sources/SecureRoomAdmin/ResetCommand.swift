// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import SecureRoomCommandLine
import SecureRoomCore
import SecureRoomProgramSupport

/// `secureroom reset USER`: clear a lockout, or remove the PIN.
struct ResetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Clear a user's failure count and lockout (root only).",
        discussion: """
            The only way, besides a successful login, to lift a disabled PIN. With \
            --remove-pin the user's PIN is deleted: the PAM module then treats the user as \
            not enrolled (nopin=). A user with a vault keeps its recovery record, so \
            'secureroom set USER --recovery-key' can bring the vault back later; removing the \
            PIN of such a user needs --force.

            A credential or lockout record that cannot be read (corrupt, truncated, wrong \
            owner) never blocks this command: it is moved aside to \
            NAME.KIND.corrupt-TIMESTAMP in the state directory (kept for inspection, logged) \
            and the user starts clean: a fresh lockout record, or no PIN when the credential \
            itself was the one moved aside.

            A PIN bound to its own counter in the TPM is also counted there: once that counter \
            reaches its limit the chip refuses the PIN for good, and this command says so. \
            Then either give a new PIN ('secureroom set USER'; the user: 'secureroom enrol \
            --replace'), or, with --tpm-secret, set the counter back with the TPM recovery secret \
            that 'secureroom tpm harden' printed (typed without echo, or one line on standard \
            input). Without that secret nobody can, root included.
            """)

    @Argument(help: "The account.")
    var user: String

    @Flag(help: "Delete the user's PIN and failure record.")
    var removePin = false

    @Flag(help: "With --remove-pin: remove it even though the user's vault then needs the recovery key.")
    var force = false

    @Flag(
        help: "Also set the PIN's counter in the TPM back to 0, with the TPM recovery secret (read as the help says).")
    var tpmSecret = false

    func validate() throws {
        if tpmSecret && removePin { throw ValidationError("--tpm-secret and --remove-pin exclude each other") }
    }

    @OptionGroup var state: StateOptions

    func run() throws {
        try requireRoot("reset")
        try reportingFailures {
            let user = try UserName(user)
            let store = try state.store()
            SystemLog.open(identity: "secureroom")
            let movedAside = try moveCorruptRecordsAside(of: user, in: store)
            if movedAside.contains(.credential) {
                print("\(user) has no PIN now; give one with: secureroom set \(user)")
                return
            }
            if removePin {
                if try store.credential(for: user)?.vaultKey != nil, !force {
                    printError(
                        "\(user) has a vault: without the PIN only their recovery key opens it "
                            + "('secureroom set \(user) --recovery-key' gives a new PIN that does); add --force to "
                            + "remove the PIN"
                    )
                    throw ExitStatus.failure
                }
                try PINAdministration(store: store).removePIN(for: user)
                SystemLog.notice("PIN removed for \(user)")
                print("PIN removed for \(user).")
                return
            }
            guard let credential = try store.credential(for: user) else {
                throw SecureRoomError.notEnrolled(user: user.rawValue)
            }
            // With --tpm-secret, the chip first: a wrong secret changes nothing at all.
            if tpmSecret { try resetChipCounter(of: user, binding: credential.binding, in: store) }
            if movedAside.contains(.lockout) {
                SystemLog.notice("lockout reset for \(user) (its record was corrupt)")
                print("Lockout cleared for \(user) (a fresh record replaces the corrupt one).")
                return
            }
            let before = try store.lockout(for: user).counted
            try PINAdministration(store: store).resetLockout(for: user)
            SystemLog.notice("lockout reset for \(user) (was \(before) consecutive failures)")
            print("Lockout cleared for \(user) (was \(before) consecutive failures).")
            if !tpmSecret, case .pinIndex(let binding)? = credential.binding { sayIfSpent(user, binding, store) }
        }
    }

    /// `--tpm-secret`: the PIN's counter in the TPM set back with the TPM recovery secret.
    private func resetChipCounter(of user: UserName, binding: TPMBinding?, in store: StateStore) throws {
        guard case .pinIndex(let binding)? = binding else {
            throw SecureRoomError.tpm(.failed("\(user)'s PIN has no counter in the TPM"))
        }
        let secret = try readTPMRecoverySecret()
        let deny = store.configuration.lockout.deny
        try ChipHardening.resetCounter(of: binding, limit: deny, on: TPMChip(store.configuration), secret: secret)
        SystemLog.notice("TPM counter of \(user)'s PIN set back (limit \(deny))")
        print("The TPM's counter of \(user)'s PIN is back at 0 of \(deny).")
    }

    /// Says when the PIN is spent on the chip: the lockout just cleared does not bring it back.
    private func sayIfSpent(_ user: UserName, _ binding: PinIndexBinding, _ store: StateStore) {
        guard let counter = try? binding.standing(on: TPMChip(store.configuration)), counter.count >= counter.limit
        else { return }
        printError(
            "\(user)'s PIN is spent on the TPM (\(counter.count) wrong PINs of \(counter.limit)): the chip refuses it "
                + "for good. Give a new one with 'secureroom set \(user)' (the user: 'secureroom enrol --replace'), "
                + "or set the counter back with 'secureroom reset \(user) --tpm-secret'.")
    }

    /// Every record of `user` that cannot be read, moved aside (told and logged), so that
    /// the rest of the command starts from clean files.
    private func moveCorruptRecordsAside(of user: UserName, in store: StateStore) throws -> Set<StateStore.RecordKind> {
        var moved: Set<StateStore.RecordKind> = []
        for kind in StateStore.RecordKind.allCases {
            do {
                switch kind {
                case .credential: _ = try store.credential(for: user)
                case .lockout: _ = try store.lockout(for: user)
                }
            } catch let error as SecureRoomError {
                guard isRecordProblem(error, of: user) else { throw error }
                guard let aside = try store.moveAside(kind, of: user, at: SystemClock().now().wallSeconds) else {
                    continue
                }
                SystemLog.warning("\(error); moved aside to \(aside) by secureroom reset")
                print("\(error): moved aside to \(aside).")
                moved.insert(kind)
            }
        }
        return moved
    }
}
