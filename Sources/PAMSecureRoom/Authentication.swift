// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomPAM
import SecureRoomCore

/// The `auth` group: obtain the PIN and have it checked under the lockout, in this
/// process when running as root, by secureroom-helper otherwise (`ModuleCall.authority`).
/// Why a PIN could not be used is told where every failure is mapped (`ModuleResult`).
struct Authentication {
    /// The call being served.
    let call: ModuleCall

    /// pam_unix's failure delay: about 2 s, randomised by libpam.
    static let failureDelay: UInt32 = 2_000_000

    /// Runs pam_sm_authenticate and returns its PAM code.
    func run() throws -> Int32 {
        // Lines after the primary authentication: never a way in, always PAM_IGNORE.
        guard call.asksForPIN else {
            if call.configuration.authSucceeded { try liftLockout() }
            if call.configuration.enrol != .off { EnrolmentOffer(call: call).run() }
            return PAM_IGNORE
        }
        // What an earlier attempt on this handle left never outlives a new one.
        call.pam.drop(.pinAccepted)
        if call.ignoresTransaction() { return PAM_IGNORE }
        call.pam.dropVaultKey()
        call.pam.clearFlag(.pinExpired)
        if !call.configuration.noDelay { call.pam.requestFailureDelay(microseconds: Self.failureDelay) }
        let (user, uid) = try call.resolveUser()
        if let uid, call.isExempt(uid) {
            call.debug("root is exempt (set even_deny_root to use a PIN for root)")
            return PAM_IGNORE
        }
        guard uid != nil else { return try withoutPIN(user, known: false, prompted: false) }
        if call.authority.readsRecords { forgetEndedSessions(of: user) }
        var prompted = false
        // The PIN as typed, kept (wiped when freed) only for an expired PIN's proof.
        var typed: SecretBytes?
        let outcome = try call.authority.check(user) {
            prompted = true
            let pin = try obtainPIN()
            typed = pin.withUnsafeBytes { SecretBytes(copying: $0) }
            return pin
        }
        report(outcome, for: user)
        switch outcome {
        case .success(let success): return try accepted(success, for: user, typed: typed)
        case .incorrect, .repeatedIncorrect: return PAM_AUTH_ERR
        case .locked: return PAM_MAXTRIES
        case .notEnrolled: return try withoutPIN(user, known: true, prompted: prompted)
        }
    }

    /// A session that died without closing is noticed at a check too (best effort: a
    /// broken session list must not stop a login).
    private func forgetEndedSessions(of user: UserName) {
        do { try VaultSession(call: call).forgetEndedSessions(of: user) } catch {
            call.debug("sessions of \(user): \(error)")
        }
    }

    /// Tells the user what a check's outcome says, and logs its lines. Checked through
    /// secureroom-helper, the outcome's MESSAGE_ID is on the helper's entry (root's,
    /// _UID=0): this process is the user's, and its entries are the user's word.
    private func report(_ outcome: PINOutcome, for user: UserName) {
        if let message = Messages.text(for: outcome) { call.tell(message) }
        for line in Messages.logLines(for: outcome, subject: "\(user)") {
            call.pam.log(
                line.priority, line.text + call.originFields, event: call.authority.readsRecords ? line.event : nil,
                user: "\(user)")
        }
    }

    /// A right PIN: what comes with the outcome is told and kept for the steps after
    /// this one; the records are not read again (from the helper the outcome carries
    /// nothing to tell: it tells nothing a screen locker could show).
    private func accepted(_ success: PINSuccess, for user: UserName, typed: SecretBytes?) throws -> Int32 {
        call.pam.log(
            LOG_INFO, "PIN accepted for \(user)\(call.originFields)",
            event: call.authority.readsRecords ? .accepted : nil, user: "\(user)")
        if success.failures.count > 0 {
            call.tell(
                Messages.failuresSinceLastLogin(success.failures.count, kept: success.failures.unforgiven, user: user))
        }
        if let erasure = success.vaultErased {
            call.tell(Messages.vaultErased(erasure, user: user))
            try call.authority.acknowledgeVaultErasure(erasure, for: user)
        }
        // `account` asks for the new PIN right after this (AccountCheck).
        if success.mustChange != nil, let typed, let proof = try call.authority.expiredPINProof(typed, for: user) {
            try call.pam.keep(proof, as: .expiredPINCheck, for: user)
            call.pam.setFlag(.pinExpired)
        }
        // For setcred or open_session, which put it in the user's keyring (VaultSession).
        if let vaultKey = success.vaultKey { try call.pam.stashVaultKey(vaultKey, for: user) }
        // Last: a step above that failed leaves no mark that the PIN was accepted.
        try call.pam.markPINAccepted(for: user)
        return PAM_SUCCESS
    }

    /// `authsucc`: this line runs only once the primary authentication succeeded. If that
    /// was the password, the user proved the stronger secret: their PIN lockout is lifted
    /// (pam_faillock's pattern). If it was the PIN itself (the handle says so), nothing
    /// is lifted: the PIN's own rules already decided what a success forgives, and the
    /// failures they keep for a year must not vanish at the victim's next PIN login
    /// (docs/SECURITY.md §1.1). Always PAM_IGNORE, so the line can never let anyone in,
    /// wherever it is put. Without root nothing can be lifted: users cannot reset their
    /// own tally through the helper.
    /// It also records that the password was accepted (`PasswordProof`), whatever this
    /// line's `password_first=`: the PIN's own line may name the option where this one
    /// does not.
    private func liftLockout() throws {
        let (user, uid) = try call.resolveUser()
        if call.pam.pinAccepted(by: user) {
            call.debug("lockout of \(user) not lifted: the PIN, not the password, authenticated")
            return
        }
        guard let uid, !call.isExempt(uid) else { return }
        let acceptance = try call.authority.passwordAccepted(by: user)
        if let reason = acceptance.proofNotRecorded { call.debug("password proof of \(user) not recorded: \(reason)") }
        if let status = acceptance.lifted {
            call.pam.log(LOG_NOTICE, "PIN lockout of \(user) lifted (\(status)): the primary authentication succeeded")
        }
    }

    /// A user without a PIN (or an unknown account): PAM_IGNORE at once with `nopin=ignore`.
    /// With `nopin=fail`, exactly what an enrolled user's wrong PIN gets
    /// (`PINAuthority.checkWithoutPIN`), and PAM_AUTH_ERR (PAM_MAXTRIES while locked).
    /// `prompted`: the PIN was asked for, and counted on the decoy, before the user's PIN
    /// turned out to be gone.
    private func withoutPIN(_ user: UserName, known: Bool, prompted: Bool) throws -> Int32 {
        guard call.configuration.noPIN == .fail else {
            call.pam.log(
                LOG_INFO,
                "PIN not used for \(user): no PIN\(known ? "" : " (unknown account)") "
                    + "(nopin=ignore)\(call.originFields)", event: .notUsed, user: "\(user)"
            )
            return known ? PAM_IGNORE : PAM_USER_UNKNOWN
        }
        let outcome = try call.authority.checkWithoutPIN(user, prompted: prompted) { try obtainPIN() }
        if let message = Messages.text(for: outcome) { call.tell(message) }
        call.pam.log(
            LOG_NOTICE,
            "authentication failure for \(user): \(known ? "no PIN enrolled" : "unknown account") (nopin=fail)"
                + call.originFields, event: .noPIN, user: "\(user)")
        if case .locked = outcome { return PAM_MAXTRIES }
        return PAM_AUTH_ERR
    }

    /// The PIN from PAM_AUTHTOK (use_first_pass, try_first_pass) or from the conversation.
    /// With `pin_or_password`, an answer that is not a PIN ends the call with PAM_IGNORE
    /// before anything is counted: handed to the next module, or, when empty, dropped.
    private func obtainPIN() throws -> SecretBytes {
        let configuration = call.configuration
        if configuration.pinOrPassword && !configuration.useFirstPass && !configuration.tryFirstPass {
            switch try call.pam.promptPINOrPassword(localized("PIN or password: "), format: configuration.format) {
            case .pin(let pin): return pin
            case .handedOn, .empty: throw ModuleResult(code: PAM_IGNORE)
            }
        }
        if configuration.useFirstPass || configuration.tryFirstPass {
            do {
                if let token = try call.pam.tokenItem(old: false, format: configuration.format) { return token }
            } catch SecureRoomError.malformedPIN where configuration.tryFirstPass {
                // The earlier module's token is not a PIN: ask for one.
            }
            if configuration.useFirstPass {
                throw ModuleResult(
                    code: PAM_AUTH_ERR, log: "use_first_pass: no PIN from an earlier module", priority: LOG_NOTICE)
            }
        }
        return try call.promptPIN(localized("PIN: "))
    }
}
