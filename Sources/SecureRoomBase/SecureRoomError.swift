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
    /// The user's PIN has `digits` digits, but `digits=` now asks for `configured`: it
    /// cannot be typed until it is set again (docs/FORMAT.md §2).
    case pinLengthChanged(user: String, digits: Int, configured: Int)
    /// `password_first=`: the user's password was not accepted on this machine since boot
    /// (or not recently enough), so the PIN is not asked for; nothing was counted.
    case passwordFirst(user: String)
}

extension SecureRoomError: TranslatableDescription {
    /// The explanation in the user's language, for a tool's error message.
    public var localizedDescription: String { text(.user) }

    /// A one-line explanation (`description` for logs, `localizedDescription` for a tool's
    /// error message); never contains a PIN.
    public func text(_ translate: Translation) -> String {
        switch self {
        case let .insecure(path, reason):
            return translate("refusing {path}: {reason}", ["path": path, "reason": reason])
        case let .stateMissing(path): return translate("{path} does not exist (run 'secureroom init')", ["path": path])
        case let .corruptRecord(path, reason):
            return translate("corrupt record {path}: {reason}", ["path": path, "reason": reason])
        case let .system(operation, path, errno):
            let text = String(cString: strerror(errno))
            return path.isEmpty ? "\(operation): \(text)" : "\(operation) \(path): \(text)"
        case let .invalidUserName(name): return translate("invalid user name {name}", ["name": UserName.quoted(name)])
        case let .invalidConfiguration(message):
            return translate("invalid configuration: {problem}", ["problem": message])
        case let .kdfFailure(message): return "argon2: \(message)"
        case let .malformedPIN(digits):
            return translate("the PIN must be exactly {digits} digits (0-9)", ["digits": String(digits)])
        case let .notEnrolled(user): return translate("{user} has no PIN", ["user": user])
        case let .alreadyInitialized(path): return translate("{path} is already initialized", ["path": path])
        case let .pinRejected(reason):
            return translate("PIN rejected: {reason}", ["reason": translate.lookUp(reason)])
        case let .helperFailed(message): return translate.lookUp(message)
        case let .helperRefused(reason):
            return translate("secureroom-helper refused: {reason}", ["reason": translate.lookUp(reason)])
        case let .changedConcurrently(user):
            return translate(
                "the PIN of {user} was changed, removed or reset during this change; nothing was changed",
                ["user": user])
        case let .busy(path, seconds, holder):
            return translate(
                "{path} is still locked by {holder} after {seconds} s",
                ["path": path, "holder": holder, "seconds": String(seconds)])
        case let .accountUnavailable(user, reason):
            return translate("{user} may not use a PIN: {reason}", ["user": user, "reason": reason])
        case let .tpm(problem): return problem.description
        case .invalidRecoveryKey: return translate("a recovery key is 40 digits (eight groups of five)")
        case let .passwordNotAccepted(reason):
            return translate("password not accepted ({reason}); nothing was changed", ["reason": reason])
        case let .pinLengthChanged(user, digits, configured):
            return translate(
                "the PIN of {user} has {digits} digits, but digits={configured}: it cannot be typed until it is "
                    + "set again", ["user": user, "digits": String(digits), "configured": String(configured)])
        case let .passwordFirst(user):
            return translate(
                "the PIN of {user} works only after a password login since the computer started (password_first)",
                ["user": user])
        case let .wrongRecoveryKey(user):
            return translate("the recovery key does not open the vault of {user}", ["user": user])
        case let .vaultWouldBeLost(user):
            return translate(
                "{user} has a vault: a new PIN without the recovery key makes it unreadable "
                    + "(give --recovery-key, or --force to accept the loss)", ["user": user])
        case let .vaultKeyExists(user, recoverable):
            return recoverable
                ? translate(
                    "{user} already set up a vault; its key is kept by the recovery key "
                        + "('secureroom-vault recover' brings it back)", ["user": user])
                : translate("{user} already has a vault key", ["user": user])
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
