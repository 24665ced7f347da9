// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import SecureRoomCommandLine
import SecureRoomCore
import SecureRoomProgramSupport

/// `secureroom tpm prune`: frees, with the TPM recovery secret, the counters no record names.
struct TPMPruneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Free the TPM counters of replaced and removed PINs, with the TPM recovery secret.",
        discussion: """
            Each bound PIN has its own counter in the chip (an NV index). On a chip that is \
            not hardened, a PIN that is replaced or removed frees its counter at once; on a \
            hardened one only the TPM recovery secret can, so the counters of old PINs stay \
            and fill the chip ('secureroom tpm status' shows pin_indices and how many no \
            record names). This removes every SecureRoom counter that neither a user's PIN \
            nor the decoys name, with the secret that 'secureroom tpm harden' printed (typed \
            without echo, or one line on standard input; a chip that is not hardened needs \
            none: counters left by interrupted PIN changes). A counter whose PIN is being set \
            right now is kept; each user may leave at most \(PINAdministration.unprunedCounterLimit) \
            behind before their own PIN changes wait for this.
            """)

    @OptionGroup var state: StateOptions

    func run() throws {
        try requireRoot("tpm prune")
        try reportingFailures {
            let store = try state.store()
            let chip = TPMChip(store.configuration)
            // A chip that is not hardened needs no secret (its owner authorization is empty).
            let secret = try ChipHardening.state(of: chip).hardened ? readTPMRecoverySecret() : nil
            let (freed, named) = try ChipHardening.prune(chip, secret: secret, store: store)
            SystemLog.open(identity: "secureroom")
            SystemLog.notice("TPM: freed \(freed) counters no record names")
            print("Freed \(freed) counters of replaced or removed PINs; \(named) in use.")
        }
    }
}
