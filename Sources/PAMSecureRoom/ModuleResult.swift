// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomPAM
import SecureRoomCore

/// A PAM return code with the syslog line that explains it. Thrown inside the module
/// to end a call early; `ModuleResult(for:)` is the one mapping from every error to a
/// code and a line.
struct ModuleResult: Error {
    /// The PAM return code.
    let code: Int32
    /// The syslog line (never containing a PIN), or nil for none.
    let log: String?
    /// The syslog priority for `log`.
    let priority: Int32

    /// A result with an optional log line.
    init(code: Int32, log: String? = nil, priority: Int32 = LOG_ERR) {
        self.code = code
        self.log = log
        self.priority = priority
    }

    /// The mapping of every failure to a PAM return code (README "Return codes"):
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
    ///   (another user's PIN): PAM_AUTH_ERR (nothing is checked against the record)
    init(for error: any Error, user: String?) {
        let subject = user.map { " (user \(UserName.quoted($0)))" } ?? ""
        switch error {
        case let result as ModuleResult:
            self = result
        case let failure as SecureRoomError:
            switch failure {
            case .insecure, .stateMissing, .corruptRecord, .system, .kdfFailure, .alreadyInitialized, .helperFailed,
                .busy:
                self.init(code: PAM_AUTHINFO_UNAVAIL, log: "\(failure)\(subject)")
            case .invalidUserName:
                self.init(code: PAM_USER_UNKNOWN, log: "\(failure)", priority: LOG_NOTICE)
            case .invalidConfiguration, .invalidRecoveryKey, .wrongRecoveryKey, .vaultWouldBeLost, .vaultKeyExists,
                .passwordNotAccepted:
                // The vault set-up, recovery and self-enrolment errors belong to the tools;
                // no module path raises them.
                self.init(code: PAM_SERVICE_ERR, log: "\(failure)")
            case .malformedPIN:
                self.init(code: PAM_AUTH_ERR, log: "malformed PIN entered\(subject)", priority: LOG_NOTICE)
            case .pinRejected, .helperRefused, .accountUnavailable:
                self.init(code: PAM_AUTH_ERR, log: "\(failure)\(subject)", priority: LOG_NOTICE)
            case .changedConcurrently:
                self.init(code: PAM_AUTHTOK_ERR, log: "\(failure)", priority: LOG_NOTICE)
            case .notEnrolled:
                self.init(code: PAM_IGNORE)
            case .passwordFirst:
                self.init(code: PAM_IGNORE, log: "\(failure)", priority: LOG_INFO)
            case .pinLengthChanged, .tpm(.lockedOut), .tpm(.shareSpent), .tpm(.pinSpent), .tpm(.bootChanged):
                // A PIN of another length, as a record below the argon2 floor: nothing
                // counted, the stack goes on.
                self.init(code: PAM_AUTHINFO_UNAVAIL, log: "\(failure)\(subject)", priority: LOG_NOTICE)
            case .tpm:
                self.init(code: PAM_AUTHINFO_UNAVAIL, log: "\(failure)\(subject)")
            }
        default:
            self.init(code: PAM_SERVICE_ERR, log: "unexpected error\(subject)")
        }
    }
}
