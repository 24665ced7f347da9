import CSecureRoomPAM
import SecureRoomCore

/// The `session` group and `setcred`: the vault's "lock on background".
///
/// A successful `auth` left the unlocked vault key with the handle (`PAMHandle.stashVaultKey`).
/// `setcred` (PAM_ESTABLISH_CRED) or `open_session`, whichever comes first, moves it into
/// the user's kernel keyring for `vault_timeout=`. Sessions are counted (as root) so the
/// last `close_session` of a user removes the key. A session opened without the PIN
/// (sshd with a key, autologin) unlocks nothing; the user is told how to unlock.
struct VaultSession {
    /// The call being served.
    let call: ModuleCall

    /// pam_sm_setcred: establish (or refresh) puts a stashed key in the keyring;
    /// PAM_DELETE_CRED leaves the key to close_session, which knows whether it is the last.
    func setCredentials() throws -> Int32 {
        if call.flags & sr_pam_delete_cred_flag() != 0 { return PAM_SUCCESS }
        let (user, keyring) = try resolve()
        do {
            _ = try unlockStashedKey(for: user, into: keyring)
        } catch {
            throw failure(error, code: PAM_CRED_ERR)
        }
        return PAM_SUCCESS
    }

    /// pam_sm_open_session.
    func open() throws -> Int32 {
        let (user, keyring) = try resolve()
        do {
            let unlocked = try unlockStashedKey(for: user, into: keyring)
            guard LocalPINAuthority.isAvailable else { return unlocked ? PAM_SUCCESS : PAM_IGNORE }
            guard let credential = try call.store.credential(for: user) else { return PAM_IGNORE }
            let sessions = try SessionCounter(path: call.configuration.sessionDirectory).open(for: user)
            debug("session \(sessions) opened for \(user)")
            if !unlocked, credential.vaultKey != nil, try keyring?.load() == nil {
                if !call.isSilent { call.pam.info("Your SecureRoom vault is locked; run 'secureroom-vault unlock' to open it.") }
            }
            return PAM_SUCCESS
        } catch {
            throw failure(error, code: PAM_SESSION_ERR)
        }
    }

    /// pam_sm_close_session: the user's last session to close locks the vault.
    func close() throws -> Int32 {
        guard LocalPINAuthority.isAvailable else { return PAM_IGNORE }
        let (user, keyring) = try resolve()
        do {
            guard try call.store.credential(for: user) != nil else { return PAM_IGNORE }
            let left = try SessionCounter(path: call.configuration.sessionDirectory).close(for: user)
            debug("session closed for \(user), \(left) still open")
            if left == 0, try keyring?.remove() == true {
                call.pam.log(LOG_INFO, "vault locked for \(user) (last session closed)")
            }
            return PAM_SUCCESS
        } catch {
            throw failure(error, code: PAM_SESSION_ERR)
        }
    }

    /// Moves a key stashed by `auth` into the keyring; false if there was none.
    private func unlockStashedKey(for user: UserName, into keyring: VaultKeyring?) throws -> Bool {
        guard let vaultKey = call.pam.takeVaultKey(for: user) else { return false }
        guard let keyring else { return false }
        let timeout = call.configuration.vaultTimeout
        try keyring.store(vaultKey, timeout: timeout)
        call.pam.log(LOG_INFO, "vault unlocked for \(user) (\(DurationText.spoken(timeout)))")
        return true
    }

    /// The user, and their keyring (nil for an account the system does not know), from one
    /// passwd lookup.
    private func resolve() throws -> (user: UserName, keyring: VaultKeyring?) {
        let (user, account) = try call.resolveAccount()
        return (user, account.map { VaultKeyring(user: user, uid: $0.uid, gid: $0.gid) })
    }

    /// A failure of this group, with its own PAM code (never the auth codes).
    private func failure(_ error: any Error, code: Int32) -> ModuleResult {
        if let result = error as? ModuleResult { return result }
        return ModuleResult(code: code, log: "vault: \(error) (user \(call.currentUser.map(UserName.quoted) ?? "?"))")
    }

    private func debug(_ line: String) {
        if call.configuration.debug { call.pam.log(LOG_DEBUG, line) }
    }
}
