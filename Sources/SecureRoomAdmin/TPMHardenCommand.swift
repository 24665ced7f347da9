// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import SecureRoomCommandLine
import SecureRoomCore

/// `secureroom tpm harden`: the TPM's dictionary-attack parameters and a random lockout
/// authorization, set once.
struct TPMHardenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "harden",
        abstract: "Set the TPM's dictionary-attack limits and a random lockout authorization (once).",
        discussion: """
            Sets max tries and the recovery time with TPM2_DictionaryAttackParameters, then a \
            random 32-byte lockout authorization, printed once in hex: keep it offline. Without \
            it, nobody (root included) can reset the dictionary-attack counter or change these \
            limits again; with it, tpm2_dictionarylockout --clear-lockout -p hex:AUTH does. \
            Refused when the chip already has a lockout authorization (another owner set it): \
            guessing it would itself count as a failure.

            The counter is the whole chip's, shared by every user and by disk encryption. Keep \
            max tries above each user's deny= (default 9) so that one user cannot lock everyone \
            out alone.
            """)

    @Option(help: "Failed authorizations before the chip locks (TPM2_PT_MAX_AUTH_FAIL).")
    var maxTries: UInt32 = 32

    @Option(help: "Seconds after which one failure is forgotten (TPM2_PT_LOCKOUT_INTERVAL).")
    var recoverySeconds: UInt32 = 600

    @Option(help: "Seconds the lockout authorization is refused after a wrong one (TPM2_PT_LOCKOUT_RECOVERY).")
    var lockoutRecoverySeconds: UInt32 = 86_400

    @OptionGroup var state: StateOptions

    func validate() throws {
        guard (1...1_000).contains(maxTries) else { throw ValidationError("--max-tries must be from 1 to 1000") }
        guard recoverySeconds > 0 else { throw ValidationError("--recovery-seconds must be at least 1") }
    }

    func run() throws {
        try requireRoot("tpm harden")
        try reportingFailures {
            let chip = TPMChip(try state.load())
            let auth = try chip.withConnection { connection -> [UInt8] in
                do {
                    return try LockoutHierarchy(connection: connection)
                        .harden(
                            maxTries: maxTries, recoverySeconds: recoverySeconds,
                            lockoutRecovery: lockoutRecoverySeconds)
                } catch TPMError.lockoutAuthAlreadySet {
                    throw SecureRoomError.tpm(
                        .failed("the chip already has a lockout authorization (set by another owner); nothing changed"))
                }
            }
            print(
                """
                TPM dictionary-attack limits set: \(maxTries) tries, one forgotten every \(recoverySeconds) s.
                Lockout authorization (shown once; keep it offline, it resets the counter):
                hex:\(Hex.encode(auth))
                """)
        }
    }
}
