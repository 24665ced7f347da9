import CSecureRoomPAM
import SecureRoomCore

/// The `password` group (pam_sm_chauthtok): current PIN (checked under the lockout,
/// so it counts as an attempt), new PIN (format and policy), confirmation.
struct PINChange {
    /// The call being served.
    let call: ModuleCall

    /// Runs pam_sm_chauthtok and returns its PAM code.
    func run() throws -> Int32 {
        if call.pam.hasFlag(.pinExpired) { return try replaceExpiredPIN() }
        if call.configuration.onlyExpired || call.ignoresRemoteTransaction() { return PAM_IGNORE }
        let (user, uid) = try call.resolveUser()
        guard let uid, !call.isExempt(uid) else { return PAM_IGNORE }
        if call.has(PAM_PRELIM_CHECK) {
            // Without root only the helper can tell whether there is a PIN; it will say so.
            let hasNoPIN = LocalPINAuthority.isAvailable ? try call.store.credential(for: user) == nil : false
            return hasNoPIN ? PAM_IGNORE : PAM_SUCCESS
        }
        let entry = try NewPINEntry(call: call)
        let outcome: PINVerifier.Outcome
        do {
            outcome = try call.authority.change(user, current: { try call.promptPIN("Current PIN: ") }) { try entry.readOnce() }
        } catch SecureRoomError.pinRejected(let reason) {
            throw ModuleResult(code: PAM_AUTHTOK_ERR, log: "new PIN for \(user) rejected: \(reason)", priority: LOG_NOTICE)
        } catch is NewPINEntry.Mismatch {
            throw ModuleResult(code: PAM_AUTHTOK_ERR, log: "new PINs for \(user) did not match", priority: LOG_NOTICE)
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

extension PINChange {
    /// The PIN just used in this transaction must be changed (`secureroom set --expire`):
    /// the application runs the `password` group with PAM_CHANGE_EXPIRED_AUTHTOK after
    /// `account` said PAM_NEW_AUTHTOK_REQD. The PIN was proven moments ago, so only the
    /// new one is asked (twice, up to three tries); the vault key that PIN unlocked is
    /// wrapped under the new one. Written only if the credential is still the one used.
    func replaceExpiredPIN() throws -> Int32 {
        if call.has(PAM_PRELIM_CHECK) { return PAM_SUCCESS }
        let (user, _) = try call.resolveUser()
        guard let credential = try call.store.credential(for: user), credential.mustChange != nil else {
            call.pam.clearFlag(.pinExpired)
            return PAM_IGNORE
        }
        let vaultKey = call.pam.peekVaultKey(for: user)
        guard credential.vaultKey == nil || vaultKey != nil else {
            throw ModuleResult(code: PAM_AUTHTOK_ERR, log: "expired PIN of \(user) not changed: its vault key was not unlocked in this transaction")
        }
        call.tell("Your PIN has expired: choose a new one.")
        guard let new = try NewPINEntry(call: call).read(tries: 3) else {
            throw ModuleResult(code: PAM_AUTHTOK_ERR, log: "expired PIN of \(user) not changed: no acceptable new PIN in 3 tries",
                               priority: LOG_NOTICE)
        }
        try Enrollment(store: call.store).setPIN(new, for: user, replacing: credential, vaultKey: vaultKey)
        call.pam.clearFlag(.pinExpired)
        call.pam.log(LOG_NOTICE, "expired PIN of \(user) changed")
        call.tell("PIN changed.")
        return PAM_SUCCESS
    }
}
