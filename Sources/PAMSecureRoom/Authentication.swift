// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomPAM
import SecureRoomCore

/// The `auth` group: obtain the PIN and have it checked under the lockout, in this
/// process when running as root, by secureroom-helper otherwise (`ModuleCall.authority`).
struct Authentication {
    /// The call being served.
    let call: ModuleCall

    /// pam_unix's failure delay: about 2 s, randomised by libpam.
    static let failureDelay: UInt32 = 2_000_000

    /// Runs pam_sm_authenticate and returns its PAM code.
    func run() throws -> Int32 {
        // Lines after the primary authentication: never a way in, always PAM_IGNORE.
        if call.configuration.authSucceeded || call.configuration.enrol != .off {
            if call.configuration.authSucceeded { try liftLockout() }
            if call.configuration.enrol != .off { EnrolmentOffer(call: call).run() }
            return PAM_IGNORE
        }
        // What an earlier attempt on this handle left never outlives a new one.
        call.pam.drop(.pinAccepted)
        if call.ignoresTransaction() { return PAM_IGNORE }
        call.pam.dropVaultKey()
        call.pam.clearFlag(.pinExpired)
        let configuration = call.configuration
        if !configuration.noDelay { call.pam.requestFailureDelay(microseconds: Self.failureDelay) }
        let (user, uid) = try call.resolveUser()
        if let uid, call.isExempt(uid) {
            call.debug("root is exempt (set even_deny_root to use a PIN for root)")
            return PAM_IGNORE
        }
        // `password_first=`: no PIN before the password since boot, for every name alike.
        if configuration.passwordFirst != .off,
            !PasswordProof(path: configuration.sessionDirectory).allowsPIN(
                of: user, under: configuration.passwordFirst, at: SystemClock().now())
        {
            call.inform(Messages.passwordFirst)
            call.pam.log(
                LOG_INFO, "PIN not used for \(user): no password login since boot (password_first)\(call.originFields)",
                event: .notUsed, user: "\(user)")
            return PAM_IGNORE
        }
        guard uid != nil else { return try withoutPIN(user, known: false, prompted: false) }
        if call.store != nil {
            // A session that died without closing is noticed here too (best effort: a
            // broken session list must not stop a login).
            do { try VaultSession(call: call).forgetEndedSessions(of: user) } catch {
                call.debug("sessions of \(user): \(error)")
            }
        }
        var prompted = false
        // The PIN as typed, kept (wiped when freed) only for an expired PIN's check below.
        var typed: SecretBytes?
        let outcome: PINVerifier.Outcome
        do {
            outcome = try call.authority.check(user) {
                prompted = true
                let pin = try obtainPIN()
                typed = pin.withUnsafeBytes { SecretBytes(copying: $0) }
                return pin
            }
        } catch SecureRoomError.accountUnavailable(_, let reason) {
            call.tell(localized("Your account is closed ({reason}); the PIN cannot be used.", ["reason": reason]))
            throw ModuleResult(
                code: PAM_AUTH_ERR, log: "refused \(user): \(reason)\(call.originFields)", priority: LOG_NOTICE)
        } catch SecureRoomError.tpm(let problem) {
            call.tell(Messages.tpm(problem))
            throw SecureRoomError.tpm(problem)
        } catch SecureRoomError.pinLengthChanged(let name, let digits, let configured) {
            call.tell(Messages.pinLengthChanged(digits: digits, configured: configured))
            throw SecureRoomError.pinLengthChanged(user: name, digits: digits, configured: configured)
        } catch SecureRoomError.busy(let path, let seconds, let holder) {
            call.tell(Messages.recordsBusy)
            throw SecureRoomError.busy(path: path, seconds: seconds, holder: holder)
        } catch SecureRoomError.helperRefused(let reason) {
            let told = Localized.lookUp(reason)
            call.tell(
                localized(
                    "PIN not accepted here: {reason}.",
                    ["reason": told.hasSuffix(".") ? String(told.dropLast()) : told]))
            throw SecureRoomError.helperRefused(reason)
        }
        if let message = Messages.text(for: outcome) { call.tell(message) }
        // Checked through secureroom-helper, the outcome's MESSAGE_ID is on the helper's
        // entry (root's, _UID=0): this process is the user's, and its entries are the user's word.
        let checkedHere = call.store != nil
        for line in Messages.logLines(for: outcome, subject: "\(user)") {
            call.pam.log(
                line.priority, line.text + call.originFields, event: checkedHere ? line.event : nil, user: "\(user)")
        }
        switch outcome {
        case .success(let success):
            // Everything to tell comes with the outcome (from the helper: nothing, it
            // tells nothing a screen locker could show); the store is not read again.
            call.pam.log(
                LOG_INFO, "PIN accepted for \(user)\(call.originFields)", event: checkedHere ? .accepted : nil,
                user: "\(user)")
            if success.failures.count > 0 {
                call.tell(
                    Messages.failuresSinceLastLogin(
                        success.failures.count, kept: success.failures.unforgiven, user: user))
            }
            if let erasure = success.vaultErased {
                call.tell(Messages.vaultErased(erasure, user: user))
                // Only the state itself reports an erasure: the helper's outcome never has one.
                if let store = call.store {
                    try PINAdministration(store: store).acknowledgeVaultErasure(erasure, for: user)
                }
            }
            // `account` asks for the new PIN right after this (AccountCheck).
            if success.mustChange != nil, let typed, let store = call.store {
                try call.pam.keep(
                    try ExpiredPINCheck.make(typed, for: user, store: store), as: .expiredPINCheck, for: user)
                call.pam.setFlag(.pinExpired)
            }
            // For setcred or open_session, which put it in the user's keyring (VaultSession).
            if let vaultKey = success.vaultKey { try call.pam.stashVaultKey(vaultKey, for: user) }
            // Last: a step above that failed leaves no mark that the PIN was accepted.
            try call.pam.markPINAccepted(for: user)
            return PAM_SUCCESS
        case .incorrect, .repeatedIncorrect:
            return PAM_AUTH_ERR
        case .locked:
            return PAM_MAXTRIES
        case .notEnrolled:
            return try withoutPIN(user, known: true, prompted: prompted)
        }
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
        guard let store = call.store, let uid, !call.isExempt(uid) else { return }
        do {
            try PasswordProof(path: call.configuration.sessionDirectory).record(for: user, at: SystemClock().now())
        } catch  where call.configuration.passwordFirst == .off {
            // Only a line that names the option may fail for want of the proof.
            call.debug("password proof of \(user) not recorded: \(error)")
        }
        guard let status = try PINVerifier(store: store).status(of: user), status.failures > 0 else { return }
        try PINAdministration(store: store).resetLockout(for: user)
        call.pam.log(LOG_NOTICE, "PIN lockout of \(user) lifted (\(status)): the primary authentication succeeded")
    }

    /// A user without a PIN (or an unknown account): PAM_IGNORE at once with `nopin=ignore`.
    /// With `nopin=fail`, exactly what an enrolled user's wrong PIN gets: the prompt, the
    /// argon2 run and writes, the messages, the count, the delays and the lockout, kept on
    /// the name's decoy slot (`PINVerifier.verifyDecoy`), and PAM_AUTH_ERR (PAM_MAXTRIES
    /// while locked). `prompted`: the PIN was asked for, and counted on the decoy, before
    /// the user's PIN turned out to be gone. Without root the decoys are out of reach: one
    /// argon2 run and a first failure's message.
    private func withoutPIN(_ user: UserName, known: Bool, prompted: Bool) throws -> Int32 {
        guard call.configuration.noPIN == .fail else {
            call.pam.log(
                LOG_INFO,
                "PIN not used for \(user): no PIN\(known ? "" : " (unknown account)") "
                    + "(nopin=ignore)\(call.originFields)", event: .notUsed, user: "\(user)"
            )
            return known ? PAM_IGNORE : PAM_USER_UNKNOWN
        }
        let outcome: PINVerifier.Outcome
        guard let store = call.store else {
            outcome = try PINVerifier.decoyWithoutState(
                prompted ? nil : try obtainPIN(), for: user, configuration: call.configuration)
            return refusedWithoutPIN(user, known: known, outcome: outcome)
        }
        let verifier = PINVerifier(store: store)
        if prompted {
            outcome = .incorrect(try verifier.decoyStatus(of: user))
        } else if case let status = try verifier.decoyStatus(of: user), !status.allowsAttempt {
            outcome = .locked(status)
        } else {
            do {
                try verifier.requireCheckable(for: user)
                outcome = try verifier.verifyDecoy(try obtainPIN(), for: user)
            } catch SecureRoomError.tpm(let problem) {
                call.tell(Messages.tpm(problem))
                throw SecureRoomError.tpm(problem)
            }
        }
        return refusedWithoutPIN(user, known: known, outcome: outcome)
    }

    /// The end of `withoutPIN`: the message a wrong PIN gets, the log line, the PAM code.
    private func refusedWithoutPIN(_ user: UserName, known: Bool, outcome: PINVerifier.Outcome) -> Int32 {
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
