// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import SecureRoomCommandLine
import SecureRoomCore
import SecureRoomProgramSupport

/// `secureroom tpm harden`: the chip's owner and lockout authorizations from one TPM
/// recovery secret, shown once, and its dictionary-attack parameters (`ChipHardening`).
struct TPMHardenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "harden",
        abstract: "Take the TPM's owner and lockout authorizations with one TPM recovery secret (once).",
        discussion: """
            Until a chip is hardened, root can remove a bound PIN's counter from it and define \
            one in its place under a value of their own, and so guess the PIN without limit. \
            This command persists the storage key at 0x81000001, sets the dictionary-attack \
            limits (TPM2_DictionaryAttackParameters), and makes one random 32-byte TPM recovery \
            secret the chip's lockout and owner authorizations; the owner's policy then allows \
            defining new indices (PINs are still bound without the secret) and nothing else. \
            The secret is printed once, as hex:..., which tpm2-tools accept with -p/-P: keep it \
            offline. With it an administrator sets a PIN's counter back ('secureroom reset USER \
            --tpm-secret'), resets the chip's dictionary-attack counter \
            (tpm2_dictionarylockout --clear-lockout -p hex:...) or clears the chip; without it \
            nobody can, root included. Losing it loses none of that: PINs keep working, and a \
            spent PIN is replaced with 'secureroom set'.

            Refused when the chip already has an owner or a lockout authorization (hardened \
            before, or another owner's: guessing it would itself count as a failure). The \
            platform hierarchy is the firmware's: if it is open (as on swtpm, or firmware that \
            does not close it at boot), whoever can use it can still remove indices, and this \
            command says so.

            Other owners of the chip: disk encryption that enrolled a TPM key (systemd-cryptenroll) \
            keeps working; tools that need the owner authorization (tpm2_createprimary -C o, \
            tpm2_evictcontrol, clevis with an owner password) then need the secret.
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
            if try ChipHardening.state(of: chip).taken {
                throw SecureRoomError.tpm(.failed(ChipHardening.alreadyTaken))
            }
            let secret = try TPMRecoverySecret.generate()
            let outcome: ChipHardening.Outcome
            do {
                outcome = try ChipHardening.harden(
                    chip, secret: secret, maxTries: maxTries, recoverySeconds: recoverySeconds,
                    lockoutRecovery: lockoutRecoverySeconds)
            } catch {
                // Some steps may have taken the secret: it is the only way to undo them.
                printError("hardening failed part-way; the chip may already use this TPM recovery secret:")
                printError(secret.text)
                throw error
            }
            SystemLog.open(identity: "secureroom")
            SystemLog.notice("TPM hardened: owner and lockout authorizations set, \(maxTries) tries")
            print(
                """
                TPM hardened: \(maxTries) tries, one forgotten every \(recoverySeconds) s; owner and lockout \
                authorizations set.
                TPM recovery secret (shown once; keep it offline: it sets PIN counters back and resets the chip):
                \(secret.text)
                """)
            if outcome.platformOpen {
                printError(
                    "warning: the TPM's platform hierarchy is open (its firmware did not close it): whoever can use "
                        + "it can still remove bound PINs' counters. On a PC, firmware closes it at every boot; "
                        + "check the firmware's TPM settings.")
            }
        }
    }
}
