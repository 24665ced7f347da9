// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Why a TPM-bound PIN could not be checked or bound (docs/DESIGN.md §11). None of them
/// is a wrong PIN, and none is a success: the stack falls through to the password.
public enum TPMProblem: Equatable, Sendable, CustomStringConvertible {
    /// No TPM answers at the configured TCTI (none present, driver missing, swtpm stopped,
    /// or it died during the check).
    case unreachable(String)
    /// The TPM is in dictionary-attack lockout: it refuses every PIN, right or wrong, for
    /// up to `seconds` more.
    case lockedOut(seconds: Int)
    /// The account put its share of wrong PINs to the chip recently (`TPMShare`): refused
    /// for `seconds` more, so that one account cannot lock the chip for all.
    case shareSpent(seconds: Int)
    /// The PIN's own counter in the TPM reached its limit: the chip refuses this PIN, the
    /// right one too, until an administrator holding the TPM recovery secret sets it back.
    /// The PIN is gone; a new one is set or enrolled.
    case pinSpent
    /// The (hardened) TPM holds too many counters of the user's own replaced PINs, which
    /// only an administrator can free (`secureroom tpm prune`): that user may not replace
    /// their PIN until then, or they could fill the chip for everyone. Other users' counters
    /// never count here.
    case pruneNeeded
    /// The TPM has no room for another PIN's counter (its NV memory is full): the PIN is not
    /// bound (`tpm=required` refuses it; `tpm=auto` keeps it unbound).
    case full
    /// The system started otherwise than when the PIN was bound (`tpm_pcrs=`: firmware,
    /// boot loader or Secure Boot state changed): the chip will not release the PIN's
    /// secret in this boot; nothing was tried. A new PIN binds to the boot as it is now.
    case bootChanged
    /// The record's sealed objects do not load on this TPM: it was cleared or replaced,
    /// or the record comes from another machine.
    case otherChip
    /// Any other TPM failure, with ESAPI's words.
    case failed(String)

    /// One line for syslog and error messages.
    public var description: String {
        switch self {
        case let .unreachable(detail): return "the TPM does not answer (\(detail))"
        case let .lockedOut(seconds):
            return "the TPM is in dictionary-attack lockout for up to \(Self.minutes(seconds)) min"
        case let .shareSpent(seconds):
            return "the account's share of the TPM's tries is spent for \(Self.minutes(seconds)) min"
        case .bootChanged: return "the system started otherwise than when the PIN was bound (tpm_pcrs=)"
        case .pruneNeeded:
            return "the TPM holds too many counters of this user's replaced PINs (an administrator runs "
                + "'secureroom tpm prune')"
        case .full: return "the TPM has no room for another PIN's counter (its NV memory is full)"
        case .pinSpent: return "the PIN's counter in the TPM reached its limit: the chip refuses this PIN"
        case .otherChip: return "the PIN is bound to another TPM (cleared, replaced, or another machine's record)"
        case let .failed(detail): return "the TPM failed: \(detail)"
        }
    }

    /// Whole minutes, rounded up.
    public static func minutes(_ seconds: Int) -> Int { (seconds + 59) / 60 }
}
