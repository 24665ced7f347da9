// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Everything a TPM operation (TPMESAPI) can fail with. Every TPM/TSS-originated case carries
/// the `ResponseCode` (raw TSS2_RC plus its `Tss2_RC_Decode` text).
public enum TPMError: Error, Equatable, CustomStringConvertible {
    /// The TPM could not be reached: TCTI-layer failure (socket closed,
    /// device missing, swtpm killed) or the ESAPI context is unusable after
    /// such a failure. The connection must be closed and reopened.
    case tpmUnreachable(ResponseCode, operation: String)
    /// Authorization failed: `TPM_RC_AUTH_FAIL` (counted by dictionary-attack
    /// logic) or `TPM_RC_BAD_AUTH` (not counted, e.g. noDA objects).
    case wrongAuth(ResponseCode, operation: String)
    /// A PIN index (`PinCounter`) reached its limit: every authorization with its
    /// authValue is refused, the right one too (`TPM_RC_AUTH_UNAVAILABLE`), until the owner
    /// sets the counter back.
    case pinLimitReached(ResponseCode)
    /// A PIN index just defined did not read `0, limit` after its first write: someone
    /// else made that write (anyone may, once), so the counter is not trusted.
    case pinIndexTampered(count: UInt32, limit: UInt32)
    /// The TPM is in dictionary-attack lockout (`TPM_RC_LOCKOUT`, 0x921):
    /// it refuses authorization of every DA-protected entity, right or wrong.
    case lockout(ResponseCode, operation: String)
    /// The sealed blob does not load under this TPM's storage key: sealed on
    /// another TPM, TPM cleared, SRK changed, or blob corrupted
    /// (`TPM_RC_INTEGRITY` and friends from `TPM2_Load`).
    case objectRejected(ResponseCode)
    /// Any other TSS/TPM failure.
    case tpm(ResponseCode, operation: String)
    /// The stored public/private bytes are not valid TPM2B structures.
    case malformedBlob(String)
    /// The storage key's name differs from the one recorded when sealing:
    /// different TPM/SRK, or somebody interposing a key of their own.
    case parentMismatch
    /// The PCRs a sealed object's policy names hold other values than when it was sealed:
    /// the system booted otherwise (`PCRPolicy`). Nothing derived from the PIN was sent.
    case pcrMismatch
    /// The trial-session PolicyAuthValue digest is not the expected constant.
    case policyDigestMismatch(got: [UInt8])
    /// `harden` refused: the lockout hierarchy already has an authValue.
    case lockoutAuthAlreadySet
    /// Caller error (wrong length etc.).
    case invalidArgument(String)
    /// The connection has been closed.
    case closed

    /// The response code, if this error came from the TSS/TPM.
    public var responseCode: ResponseCode? {
        switch self {
        case let .tpmUnreachable(rc, _), let .wrongAuth(rc, _), let .lockout(rc, _),
            let .objectRejected(rc), let .tpm(rc, _), let .pinLimitReached(rc):
            return rc
        default:
            return nil
        }
    }

    public var description: String {
        switch self {
        case let .tpmUnreachable(rc, op): return "TPM unreachable in \(op): \(rc)"
        case let .wrongAuth(rc, op): return "wrong auth in \(op): \(rc)"
        case let .lockout(rc, op): return "TPM in DA lockout (\(op)): \(rc)"
        case let .pinLimitReached(rc): return "the PIN's counter in the TPM reached its limit: \(rc)"
        case let .pinIndexTampered(count, limit):
            return "the PIN index was written by someone else before us (count \(count), limit \(limit))"
        case let .objectRejected(rc): return "object does not load on this TPM: \(rc)"
        case let .tpm(rc, op): return "\(op) failed: \(rc)"
        case let .malformedBlob(why): return "malformed blob: \(why)"
        case .parentMismatch: return "storage key name differs from the one recorded at seal time"
        case .policyDigestMismatch: return "PolicyAuthValue digest mismatch"
        case .pcrMismatch: return "the PCRs differ from when the PIN was bound"
        case .lockoutAuthAlreadySet: return "lockout auth already set; refusing to harden again"
        case let .invalidArgument(why): return "invalid argument: \(why)"
        case .closed: return "connection closed"
        }
    }

    /// Maps a non-zero TSS2_RC to the matching case.
    static func classify(_ raw: UInt32, operation: String) -> TPMError {
        let rc = ResponseCode(raw)
        if rc.layer == ResponseCode.tctiLayer {
            return .tpmUnreachable(rc, operation: operation)
        }
        if rc.isFromTPM {
            switch rc.base {
            case ResponseCode.rcAuthFail, ResponseCode.rcBadAuth:
                return .wrongAuth(rc, operation: operation)
            case ResponseCode.rcLockout:
                return .lockout(rc, operation: operation)
            default:
                break
            }
        }
        return .tpm(rc, operation: operation)
    }
}
