import CSecureRoomPAM
import SecureRoomCore

/// The `account` group. PAM_NEW_AUTHTOK_REQD when `auth` just accepted a PIN that must
/// be changed (`secureroom set --expire`): the application then runs the `password`
/// group, where `PINChange` asks for the new PIN. With `only_expired` that is all it
/// does (PAM_IGNORE otherwise, without reading the state: the line the pam-auth-update
/// profile adds). Otherwise: PAM_IGNORE for users without a PIN (and root without
/// even_deny_root), PAM_SUCCESS when the PIN is usable now, PAM_MAXTRIES while it is
/// delayed or disabled, PAM_AUTHINFO_UNAVAIL when the state cannot be trusted.
/// It never denies an account that authenticated by other means: stack it with
/// `[default=ignore success=ok]` or `optional` (see pam/). Without root it cannot read
/// the tally (the helper only checks PINs) and returns PAM_IGNORE.
struct AccountCheck {
    /// The call being served.
    let call: ModuleCall

    /// Runs pam_sm_acct_mgmt and returns its PAM code.
    func run() throws -> Int32 {
        if call.pam.hasFlag(.pinExpired) {
            call.tell("Your PIN has expired and must be changed now.")
            call.pam.log(LOG_NOTICE, "PIN of \(call.currentUser.map(UserName.quoted) ?? "?") must be changed (expired by an administrator)")
            return PAM_NEW_AUTHTOK_REQD
        }
        guard !call.configuration.onlyExpired, LocalPINAuthority.isAvailable,
              !call.ignoresRemoteTransaction() else { return PAM_IGNORE }
        let (user, uid) = try call.resolveUser()
        guard let uid, !call.isExempt(uid),
              let status = try PINVerifier(store: call.store).status(of: user)
        else { return PAM_IGNORE }
        return status.allowsAttempt ? PAM_SUCCESS : PAM_MAXTRIES
    }
}
