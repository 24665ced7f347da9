// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomPAM
import SecureRoomCore

/// A PAM return code with the syslog line that explains it and what the user is told.
/// Thrown inside the module to end a call early; `ModuleResult(for:user:origin:)` is the
/// one mapping from every error to a code, a line and a text, and `ModuleCall.run` the
/// one place that logs and tells them.
struct ModuleResult: Error {
    /// What the user is told of a result, unless silent.
    enum Message {
        /// Shown as an error (PAM_ERROR_MSG).
        case error(String)
        /// Shown as information (PAM_TEXT_INFO).
        case info(String)
    }

    /// The PAM return code.
    let code: Int32
    /// The syslog line (never containing a PIN), or nil for none.
    let log: String?
    /// The syslog priority for `log`.
    let priority: Int32
    /// The journal's MESSAGE_ID for `log` when it is a PIN outcome of its own (else the
    /// `auth` and `chauthtok` groups give PAM_AUTHINFO_UNAVAIL's `unavailable`).
    let event: LogEvent?
    /// What the `auth` group tells the user (the other groups tell nothing of it).
    let message: Message?

    /// A result with an optional log line, and optionally its event and the user's text.
    init(
        code: Int32, log: String? = nil, priority: Int32 = LOG_ERR, event: LogEvent? = nil, message: Message? = nil
    ) {
        self.code = code
        self.log = log
        self.priority = priority
        self.event = event
        self.message = message
    }

    /// The mapping of every failure to a PAM return code (pam_secureroom(8), RETURN CODES):
    ///
    /// - unsafe, missing or corrupt state, system or argon2 failures, records locked by
    ///   another process for too long, a helper that cannot run or use the state:
    ///   PAM_AUTHINFO_UNAVAIL
    /// - a user name that cannot be a record name: PAM_USER_UNKNOWN
    /// - a bad option: PAM_SERVICE_ERR
    /// - (session and setcred: keyring and session-count failures are PAM_SESSION_ERR and
    ///   PAM_CRED_ERR, mapped by VaultSession)
    /// - a PIN change overtaken by another change of the same PIN: PAM_AUTHTOK_ERR
    /// - a malformed PIN, a PIN the helper would not take, a request the helper refused
    ///   (another user's PIN), a closed account: PAM_AUTH_ERR (nothing is checked against
    ///   the record)
    /// - no password login since boot (`password_first=`): PAM_IGNORE
    ///
    /// The user is told why the PIN could not be used, in `auth`, for a closed account, a
    /// TPM problem, a PIN of another length, records locked elsewhere, a request the
    /// helper refused and `password_first=`. `origin` ends the lines of PIN outcomes
    /// (`ModuleCall.originFields`).
    init(for error: any Error, user: String?, origin: String = "") {
        let subject = user.map { " (user \(UserName.quoted($0)))" } ?? ""
        let name = user ?? "?"
        switch error {
        case let result as ModuleResult:
            self = result
        case let failure as SecureRoomError:
            switch failure {
            case .insecure, .stateMissing, .corruptRecord, .system, .kdfFailure, .alreadyInitialized, .helperFailed:
                self.init(code: PAM_AUTHINFO_UNAVAIL, log: "\(failure)\(subject)")
            case .busy:
                self.init(
                    code: PAM_AUTHINFO_UNAVAIL, log: "\(failure)\(subject)", message: .error(Messages.recordsBusy))
            case .invalidUserName:
                self.init(code: PAM_USER_UNKNOWN, log: "\(failure)", priority: LOG_NOTICE)
            case .invalidConfiguration, .invalidRecoveryKey, .wrongRecoveryKey, .vaultWouldBeLost, .vaultKeyExists,
                .passwordNotAccepted:
                // The vault set-up, recovery and self-enrolment errors belong to the tools;
                // no module path raises them.
                self.init(code: PAM_SERVICE_ERR, log: "\(failure)")
            case .malformedPIN:
                self.init(code: PAM_AUTH_ERR, log: "malformed PIN entered\(subject)", priority: LOG_NOTICE)
            case .pinRejected:
                self.init(code: PAM_AUTH_ERR, log: "\(failure)\(subject)", priority: LOG_NOTICE)
            case .helperRefused(let reason):
                let told = Localized.lookUp(reason)
                self.init(
                    code: PAM_AUTH_ERR, log: "\(failure)\(subject)", priority: LOG_NOTICE,
                    message: .error(
                        localized(
                            "PIN not accepted here: {reason}.",
                            ["reason": told.hasSuffix(".") ? String(told.dropLast()) : told])))
            case .accountUnavailable(_, let reason):
                self.init(
                    code: PAM_AUTH_ERR, log: "refused \(name): \(reason)\(origin)", priority: LOG_NOTICE,
                    message: .error(
                        localized("Your account is closed ({reason}); the PIN cannot be used.", ["reason": reason])))
            case .changedConcurrently:
                self.init(code: PAM_AUTHTOK_ERR, log: "\(failure)", priority: LOG_NOTICE)
            case .notEnrolled:
                self.init(code: PAM_IGNORE)
            case .passwordFirst:
                self.init(
                    code: PAM_IGNORE,
                    log: "PIN not used for \(name): no password login since boot (password_first)\(origin)",
                    priority: LOG_INFO, event: .notUsed, message: .info(Messages.passwordFirst))
            case .pinLengthChanged(_, let digits, let configured):
                // A PIN of another length, as a record below the argon2 floor: nothing
                // counted, the stack goes on.
                self.init(
                    code: PAM_AUTHINFO_UNAVAIL, log: "\(failure)\(subject)", priority: LOG_NOTICE,
                    message: .error(Messages.pinLengthChanged(digits: digits, configured: configured)))
            case .tpm(let problem):
                let waits: Bool
                switch problem {
                case .lockedOut, .shareSpent, .pinSpent, .bootChanged: waits = true
                default: waits = false
                }
                self.init(
                    code: PAM_AUTHINFO_UNAVAIL, log: "\(failure)\(subject)", priority: waits ? LOG_NOTICE : LOG_ERR,
                    message: .error(Messages.tpm(problem)))
            }
        default:
            self.init(code: PAM_SERVICE_ERR, log: "unexpected error\(subject)")
        }
    }
}
