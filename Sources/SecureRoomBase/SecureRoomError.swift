// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc

/// Every failure the core reports. Callers map these to their own edge:
/// the PAM module to a return code and a syslog line (PAMSecureRoom/ModuleResult.swift),
/// the CLI to an error message and an exit status.
public enum SecureRoomError: Error, Equatable, Sendable {
    /// A directory or file of the state is not safe to trust (owner, mode, symlink, type, links).
    case insecure(path: String, reason: String)
    /// The state directory, or the pepper, does not exist (run `secureroom init`).
    case stateMissing(path: String)
    /// A record exists but cannot be parsed or fails a bound.
    case corruptRecord(path: String, reason: String)
    /// A system call failed.
    case system(operation: String, path: String, errno: Int32)
    /// A user name that cannot be a record name (empty, too long, odd characters).
    case invalidUserName(String)
    /// A configuration key or value that cannot be used.
    case invalidConfiguration(String)
    /// libargon2 reported an error.
    case kdfFailure(String)
    /// A PIN that does not have the configured form (length, ASCII digits).
    case malformedPIN(digits: Int)
    /// The operation needs an enrolled user.
    case notEnrolled(user: String)
    /// The operation needs a state directory that does not exist yet, but it does.
    case alreadyInitialized(path: String)
    /// A new PIN the policy refuses (or, from secureroom-helper, any PIN it would not take).
    case pinRejected(String)
    /// secureroom-helper is missing, not setuid root, or could not use the state.
    case helperFailed(String)
    /// secureroom-helper refused the request (another account, a terminal on stdin, ...).
    case helperRefused(String)
    /// The user's PIN was set, removed or changed while a PIN change was in progress.
    case changedConcurrently(user: String)
    /// The user's records stayed locked by another process for too long.
    case busy(path: String, seconds: Int, holder: String)
    /// The account is locked or expired in the shadow file: no PIN may open it.
    case accountUnavailable(user: String, reason: String)
    /// A recovery key that is not 40 digits.
    case invalidRecoveryKey
    /// The TPM a bound PIN needs did not do its part (docs/DESIGN.md §11).
    case tpm(TPMProblem)
    /// A recovery key that does not open the user's vault key (or no recovery record).
    case wrongRecoveryKey(user: String)
    /// A new PIN would leave the user's vault unreadable (no recovery key given, no --force).
    case vaultWouldBeLost(user: String)
    /// The user's vault key already exists, or can only come back through the recovery key.
    case vaultKeyExists(user: String, recoverable: Bool)
    /// The account's password was not accepted (`secureroom enrol`; PAM's reason).
    case passwordNotAccepted(String)
    /// `password_first=`: the user's password was not accepted on this machine since boot
    /// (or not recently enough), so the PIN is not asked for; nothing was counted.
    case passwordFirst(user: String)
}

extension SecureRoomError: CustomStringConvertible {
    /// A one-line explanation for logs and error messages; never contains a PIN.
    public var description: String {
        switch self {
        case let .insecure(path, reason): return "refusing \(path): \(reason)"
        case let .stateMissing(path): return "\(path) does not exist (run 'secureroom init')"
        case let .corruptRecord(path, reason): return "corrupt record \(path): \(reason)"
        case let .system(operation, path, errno):
            let text = String(cString: strerror(errno))
            return path.isEmpty ? "\(operation): \(text)" : "\(operation) \(path): \(text)"
        case let .invalidUserName(name): return "invalid user name \(UserName.quoted(name))"
        case let .invalidConfiguration(message): return "invalid configuration: \(message)"
        case let .kdfFailure(message): return "argon2: \(message)"
        case let .malformedPIN(digits): return "the PIN must be exactly \(digits) digits (0-9)"
        case let .notEnrolled(user): return "\(user) has no PIN"
        case let .alreadyInitialized(path): return "\(path) is already initialized"
        case let .pinRejected(reason): return "PIN rejected: \(reason)"
        case let .helperFailed(message): return message
        case let .helperRefused(reason): return "secureroom-helper refused: \(reason)"
        case let .changedConcurrently(user):
            return "the PIN of \(user) was changed, removed or reset during this change; nothing was changed"
        case let .busy(path, seconds, holder): return "\(path) is still locked by \(holder) after \(seconds) s"
        case let .accountUnavailable(user, reason): return "\(user) may not use a PIN: \(reason)"
        case let .tpm(problem): return problem.description
        case .invalidRecoveryKey: return "a recovery key is 40 digits (eight groups of five)"
        case let .passwordNotAccepted(reason): return "password not accepted (\(reason)); nothing was changed"
        case let .passwordFirst(user):
            return "the PIN of \(user) works only after a password login since the computer started (password_first)"
        case let .wrongRecoveryKey(user): return "the recovery key does not open the vault of \(user)"
        case let .vaultWouldBeLost(user):
            return "\(user) has a vault: a new PIN without the recovery key makes it unreadable "
                + "(give --recovery-key, or --force to accept the loss)"
        case let .vaultKeyExists(user, recoverable):
            return recoverable
                ? "\(user) already set up a vault; its key is kept by the recovery key "
                    + "('secureroom-vault recover' brings it back)"
                : "\(user) already has a vault key"
        }
    }

    /// A recovery key that is malformed or does not open the vault: refused before any PIN.
    public var isRecoveryKeyRefusal: Bool {
        switch self {
        case .invalidRecoveryKey, .wrongRecoveryKey: return true
        default: return false
        }
    }
}
