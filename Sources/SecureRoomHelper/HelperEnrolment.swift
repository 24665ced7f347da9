// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc
import SecureRoomCore
import SecureRoomProgramSupport

/// Step 7 for `enrol` and `enrol-replace` (docs/SECURITY.md §6): a user creates, or
/// replaces, their own PIN after proving their password, never with a session alone.
/// In this order: `enrol_group` membership; no PIN yet (for `enrol`); the account not
/// locked or expired; the password (`PasswordCheck`); `ready`; the new PIN, judged by
/// the policy; written (only if the user still has no PIN, for `enrol`).
struct HelperEnrolment {
    /// The checked request.
    let invocation: HelperInvocation
    /// The state, as configured in /etc/security/secureroom.conf.
    let store: StateStore

    /// Runs the request; on success `secrets` holds a new vault key and recovery key
    /// when `enrol_vault` made them.
    func run(secrets: inout SecretBytes?) throws -> HelperReply {
        let user = invocation.user
        let subject = "\(user) (uid \(invocation.uid))"
        let replace = invocation.request == .enrolReplace
        let configuration = store.configuration
        if let group = configuration.enrolGroup, !user.isMember(ofGroup: group) {
            throw HelperRefusal("only members of group \(group) may create a PIN (enrol_group)")
        }
        _ = try store.pepper()
        if !replace, try store.credential(for: user) != nil {
            throw HelperRefusal(
                "you already have a PIN: change it with 'secureroom change', "
                    + "or replace a forgotten one with 'secureroom enrol --replace'")
        }
        if let reason = AccountState.refusal(for: user) {
            throw SecureRoomError.accountUnavailable(user: user.rawValue, reason: reason)
        }
        if let reason = PasswordCheck(user: user).run() {
            SystemLog.notice(
                "PIN \(replace ? "replacement" : "enrolment") refused for \(subject): password not accepted (\(reason))"
            )
            return .denied(reason)
        }
        let pin = try PINEntry.readLine(format: configuration.format, within: announceReady())
        let policy = PINPolicy(blocklist: try Blocklist.load(configuration.blocklist))
        if let reason = policy.rejections(of: pin).first { throw SecureRoomError.pinRejected(reason.description) }
        let administration = PINAdministration(store: store)
        if replace, let replaced = try store.credential(for: user) {
            let before = try PINVerifier(store: store).status(of: user)
            // Only the PIN read here is replaced: an administrator's set, expire or removal
            // made meanwhile wins (changedConcurrently).
            try administration.setPIN(pin, for: user, replacing: replaced)
            if let before, !before.allowsAttempt {
                SystemLog.warning(
                    "PIN of \(subject) replaced with its password while it was \(before): the failures are cleared")
            }
            SystemLog.notice("PIN replaced by \(subject) with its password (secureroom enrol --replace)")
            return .checked(.success(.init(vaultKey: nil)))
        }
        let vault = try administration.enrol(pin, for: user, vault: configuration.enrolVault)
        SystemLog.notice(
            "PIN created by \(subject) with its password (secureroom "
                + "enrol\(vault != nil ? "; vault key and recovery key made" : ""))"
        )
        if let vault { secrets = HelperSecrets.encode(vaultKey: vault.vaultKey, recoveryKey: vault.recoveryKey) }
        return .checked(.success(.init(vaultKey: nil)))
    }
}
