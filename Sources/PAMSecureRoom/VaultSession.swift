// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomPAM
import Glibc
import SecureRoomCore

/// The `session` group and `setcred`: the vault's "lock on background".
///
/// A successful `auth` left the unlocked vault key with the handle (`PAMHandle.stashVaultKey`).
/// `setcred` (PAM_ESTABLISH_CRED) or `open_session`, whichever comes first, moves it into
/// the user's kernel keyring for `vault_timeout=`. Sessions are counted (as root) by the
/// process that holds each one, so the last to end removes the key — at its
/// `close_session`, or, for a session whose process died without one, at the next open,
/// close or PIN check of the user, or when the user's vault tool next looks
/// (`SessionCounter`). A session opened without the PIN (sshd with a key, autologin)
/// unlocks nothing; the user is told how to unlock.
struct VaultSession {
    /// The call being served.
    let call: ModuleCall

    /// pam_sm_setcred: establish (or refresh) puts a stashed key in the keyring;
    /// PAM_DELETE_CRED leaves the key to close_session, which knows whether it is the last.
    func setCredentials() throws -> Int32 {
        if call.has(PAM_DELETE_CRED) { return PAM_SUCCESS }
        let user = try UserName(try call.pam.user())
        do {
            _ = try unlockStashedKey(for: user)
        } catch {
            throw failure(error, code: PAM_CRED_ERR)
        }
        return PAM_SUCCESS
    }

    /// pam_sm_open_session.
    func open() throws -> Int32 {
        let user = try UserName(try call.pam.user())
        do {
            let unlocked = try unlockStashedKey(for: user)
            guard call.authority.readsRecords else { return unlocked ? PAM_SUCCESS : PAM_IGNORE }
            // After a PIN accepted on this handle the credential is not read again: the user
            // has a PIN, and the vault key it opens, if any, was just unlocked.
            let vaultLeftLocked: Bool
            if call.pam.pinAccepted(by: user) {
                vaultLeftLocked = false
            } else {
                guard case .enrolled(let vaultKey) = try call.authority.standing(of: user) else { return PAM_IGNORE }
                vaultLeftLocked = !unlocked && vaultKey
            }
            let sessions = try SessionCounter(path: call.configuration.sessionDirectory).open(for: user, by: try host())
            call.debug("session \(sessions) opened for \(user)")
            if vaultLeftLocked, try keyring(of: user)?.load() == nil {
                if !call.isSilent {
                    call.pam.info(
                        localized("Your SecureRoom vault is locked; run 'secureroom-vault unlock' to open it."))
                }
            }
            return PAM_SUCCESS
        } catch {
            throw failure(error, code: PAM_SESSION_ERR)
        }
    }

    /// pam_sm_close_session: the user's last session to close locks the vault.
    func close() throws -> Int32 {
        guard call.authority.readsRecords else { return PAM_IGNORE }
        let user = try UserName(try call.pam.user())
        do {
            guard case .enrolled = try call.authority.standing(of: user) else { return PAM_IGNORE }
            let left = try SessionCounter(path: call.configuration.sessionDirectory).close(for: user, by: try host())
            call.debug("session closed for \(user), \(left) still open")
            if left == 0, try keyring(of: user)?.remove() == true {
                call.pam.log(LOG_INFO, "vault locked for \(user) (last session closed)")
            }
            return PAM_SUCCESS
        } catch {
            throw failure(error, code: PAM_SESSION_ERR)
        }
    }

    /// At a PIN check (as root): sessions of the user whose process died without
    /// `close_session` are forgotten, and if that left none, a key a session put in the
    /// keyring is removed. The keyring is looked at only then, not at every login.
    func forgetEndedSessions(of user: UserName) throws {
        let sessions = try SessionCounter(path: call.configuration.sessionDirectory).prune(for: user)
        guard sessions.forgotten > 0, sessions.live == 0,
            let keyring = keyring(of: user), try keyring.isSessionBound(), try keyring.remove()
        else { return }
        call.pam.log(LOG_INFO, "vault locked for \(user) (its last session ended without closing)")
    }

    /// The process holding this session: the PAM host (login, su, sshd's session process).
    private func host() throws -> ProcessIdentity {
        guard let process = ProcessIdentity.current() else {
            throw SecureRoomError.system(operation: "reading /proc/self/stat", path: "", errno: ENOENT)
        }
        return process
    }

    /// Moves a key stashed by `auth` into the keyring; false if there was none. The key is
    /// bound to the user's sessions (it locks when the last ends) as root, whose
    /// open_session counts this one, and without root (`secureroom-vault unlock`, a screen
    /// locker, which count none) when the user has a live session counted; with none, it
    /// has only its timeout (docs/SECURITY.md §3.5).
    private func unlockStashedKey(for user: UserName) throws -> Bool {
        guard let vaultKey = call.pam.takeVaultKey(for: user) else { return false }
        guard let keyring = keyring(of: user) else { return false }
        let timeout = call.configuration.vaultTimeout
        if call.authority.readsRecords {
            try keyring.store(vaultKey, timeout: timeout, sessionBound: true)
        } else {
            let sessions = SessionCounter(path: call.configuration.sessionDirectory)
            guard try keyring.storeFollowingSessions(vaultKey, timeout: timeout, in: sessions) else { return false }
        }
        call.pam.log(LOG_INFO, "vault unlocked for \(user) (\(DurationText.spoken(timeout)))")
        return true
    }

    /// The user's keyring (nil for an account the system does not know). Looked up only
    /// where a key is stored, checked or removed: most calls never need the passwd entry.
    private func keyring(of user: UserName) -> VaultKeyring? {
        user.account().map { VaultKeyring(user: user, uid: $0.uid, gid: $0.gid) }
    }

    /// A failure of this group, with its own PAM code (never the auth codes).
    private func failure(_ error: any Error, code: Int32) -> ModuleResult {
        if let result = error as? ModuleResult { return result }
        return ModuleResult(code: code, log: "vault: \(error) (user \(call.currentUser.map(UserName.quoted) ?? "?"))")
    }
}
