// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomPAM
import SecureRoomCore

/// The `account` group. When `auth` just accepted a PIN that must be changed
/// (`secureroom set --expire`), the new PIN is asked for here (`replaceExpiredPIN`):
/// PAM_SUCCESS once it is set, PAM_PERM_DENIED if none is. Not PAM_NEW_AUTHTOK_REQD:
/// the application would then run `common-password`, where pam_unix asks to change the
/// password, expired or not (docs/DESIGN.md §12). With `only_expired` that is all it does
/// (PAM_IGNORE otherwise, without reading anything: the line the pam-auth-update profile
/// adds). Otherwise: PAM_IGNORE for users without a PIN (and root without
/// even_deny_root), PAM_SUCCESS when the PIN is usable now, PAM_MAXTRIES while it is
/// delayed or disabled (without reading the records when `auth` accepted the PIN on this
/// handle), PAM_AUTHINFO_UNAVAIL when the state cannot be trusted.
/// It never denies an account that authenticated by other means: stack it with
/// `[default=ignore success=ok]` or `optional` (see pam/). Without root it cannot read
/// the tally (the helper only checks PINs) and returns PAM_IGNORE.
struct AccountCheck {
    /// The call being served.
    let call: ModuleCall

    /// Runs pam_sm_acct_mgmt and returns its PAM code.
    func run() throws -> Int32 {
        if call.pam.hasFlag(.pinExpired) { return try replaceExpiredPIN() }
        guard !call.configuration.onlyExpired, call.authority.readsRecords, !call.ignoresTransaction()
        else { return PAM_IGNORE }
        let (user, uid) = try call.resolveUser()
        guard let uid, !call.isExempt(uid) else { return PAM_IGNORE }
        // This user's PIN was accepted on this handle moments ago: it is usable; nothing to read.
        if call.pam.pinAccepted(by: user) { return PAM_SUCCESS }
        guard let status = try call.authority.status(of: user) else { return PAM_IGNORE }
        return status.allowsAttempt ? PAM_SUCCESS : PAM_MAXTRIES
    }
}

extension AccountCheck {
    /// The PIN just used in this transaction must be changed: it was proven moments ago,
    /// so only the new one is asked (twice, up to three tries); the vault key that PIN
    /// unlocked is wrapped under the new one. Written only if the credential is still the
    /// one used. Without a new PIN the login is refused (PAM_PERM_DENIED).
    func replaceExpiredPIN() throws -> Int32 {
        let (user, _) = try call.resolveUser()
        // Only the state itself marks a PIN as expired (`Authentication`): never without root.
        let replacement = try call.authority.replaceExpiredPIN(
            of: user, vaultKey: call.pam.peekVaultKey(for: user), proof: call.pam.kept(.expiredPINCheck, for: user)
        ) { refusing in
            call.tell(localized("Your PIN has expired and must be changed now."))
            return try NewPINEntry(call: call).read(tries: 3, refusing: refusing)
        }
        switch replacement {
        case .notExpired:
            call.pam.clearFlag(.pinExpired)
            return PAM_IGNORE
        case .vaultKeyNotUnlocked:
            throw ModuleResult(
                code: PAM_PERM_DENIED,
                log: "expired PIN of \(user) not changed: its vault key was not unlocked in this transaction")
        case .abandoned:
            throw ModuleResult(
                code: PAM_PERM_DENIED, log: "expired PIN of \(user) not changed: no acceptable new PIN in 3 tries",
                priority: LOG_NOTICE)
        case .replaced:
            call.pam.clearFlag(.pinExpired)
            call.pam.drop(.expiredPINCheck)
            call.pam.log(LOG_NOTICE, "expired PIN of \(user) changed\(call.originFields)")
            call.inform(localized("PIN changed."))
            return PAM_SUCCESS
        }
    }
}
