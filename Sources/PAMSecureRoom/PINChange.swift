import CSecureRoomPAM
import SecureRoomCore

/// The `password` group (pam_sm_chauthtok): current PIN (checked under the lockout,
/// so it counts as an attempt), new PIN (format and policy), confirmation.
struct PINChange {
    /// The call being served.
    let call: ModuleCall

    /// Runs pam_sm_chauthtok and returns its PAM code.
    func run() throws -> Int32 {
        let (user, uid) = try call.resolveUser()
        guard let uid, !call.isExempt(uid),
              let status = try PINVerifier(store: call.store).status(of: user)
        else { return PAM_IGNORE }
        if call.flags & Int32(bitPattern: UInt32(PAM_PRELIM_CHECK)) != 0 {
            return PAM_SUCCESS
        }
        guard status.allowsAttempt else {
            call.tell(Messages.locked(status))
            return PAM_MAXTRIES
        }
        let format = call.configuration.format
        let policy = PINPolicy(blocklist: try Blocklist.load(call.configuration.blocklist))
        let current = try call.pam.promptPIN("Current PIN: ", format: format)
        let outcome = try Enrollment(store: call.store).changePIN(for: user, current: current) {
            let new = try call.pam.promptPIN("New PIN: ", format: format)
            if let reason = policy.rejections(of: new).first {
                throw ModuleResult(code: PAM_AUTHTOK_ERR, log: "new PIN for \(user) rejected: \(reason)",
                                   priority: LOG_NOTICE).telling(call, "PIN rejected: \(reason).")
            }
            let again = try call.pam.promptPIN("Retype new PIN: ", format: format)
            guard new.constantTimeEquals(again) else {
                throw ModuleResult(code: PAM_AUTHTOK_ERR, log: "new PINs for \(user) did not match",
                                   priority: LOG_NOTICE).telling(call, "PINs do not match.")
            }
            return new
        }
        if let message = Messages.text(for: outcome) { call.tell(message) }
        switch outcome {
        case .success:
            call.pam.log(LOG_NOTICE, "PIN changed for \(user)")
            return PAM_SUCCESS
        case .incorrect, .repeatedIncorrect:
            call.pam.log(LOG_NOTICE, "PIN change for \(user): wrong current PIN")
            return PAM_AUTH_ERR
        case .locked:
            return PAM_MAXTRIES
        case .notEnrolled:
            return PAM_IGNORE
        }
    }
}

extension ModuleResult {
    /// This result, after telling the user `message`.
    func telling(_ call: ModuleCall, _ message: String) -> ModuleResult {
        call.tell(message)
        return self
    }
}
