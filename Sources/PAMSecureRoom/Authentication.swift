import CSecureRoomPAM
import SecureRoomCore

/// The `auth` group: obtain the PIN and check it under the lockout (PINVerifier).
struct Authentication {
    /// The call being served.
    let call: ModuleCall

    /// pam_unix's failure delay: about 2 s, randomised by libpam.
    static let failureDelay: UInt32 = 2_000_000

    /// Runs pam_sm_authenticate and returns its PAM code.
    func run() throws -> Int32 {
        let configuration = call.configuration
        if !configuration.noDelay { call.pam.requestFailureDelay(microseconds: Self.failureDelay) }
        let (user, uid) = try call.resolveUser()
        if let uid, call.isExempt(uid) {
            debug("root is exempt (set even_deny_root to use a PIN for root)")
            return PAM_IGNORE
        }
        let verifier = PINVerifier(store: call.store)
        guard let status = uid == nil ? nil : try verifier.status(of: user) else {
            return try withoutPIN(user, known: uid != nil, verifier: verifier)
        }
        guard status.allowsAttempt else {
            call.tell(Messages.locked(status))
            call.pam.log(LOG_NOTICE, "refused \(user): PIN locked (\(describe(status)))")
            return PAM_MAXTRIES
        }
        let pin = try obtainPIN()
        let outcome = try verifier.verify(pin, for: user)
        if let message = Messages.text(for: outcome) { call.tell(message) }
        switch outcome {
        case .success:
            debug("PIN accepted for \(user)")
            return PAM_SUCCESS
        case .incorrect(let after):
            call.pam.log(LOG_NOTICE, "authentication failure for \(user): wrong PIN (\(describe(after)))")
            if case .disabled = after { call.pam.log(LOG_WARNING, "PIN disabled for \(user) (\(describe(after)))") }
            return PAM_AUTH_ERR
        case .repeatedIncorrect:
            call.pam.log(LOG_NOTICE, "authentication failure for \(user): repeated wrong PIN, not counted")
            return PAM_AUTH_ERR
        case .locked(let now):
            call.pam.log(LOG_NOTICE, "refused \(user): PIN locked (\(describe(now)))")
            return PAM_MAXTRIES
        case .notEnrolled:
            return configuration.noPIN == .ignore ? PAM_IGNORE : PAM_AUTH_ERR
        }
    }

    /// A user without a PIN (or an unknown account): PAM_IGNORE at once with `nopin=ignore`;
    /// with `nopin=fail`, the same prompt and argon2 time as a real check, then failure.
    private func withoutPIN(_ user: UserName, known: Bool, verifier: PINVerifier) throws -> Int32 {
        let unknownCode = known ? PAM_AUTH_ERR : PAM_USER_UNKNOWN
        guard call.configuration.noPIN == .fail else {
            debug("\(user) has no PIN\(known ? "" : " (unknown account)"); ignoring")
            return known ? PAM_IGNORE : PAM_USER_UNKNOWN
        }
        let pin = try obtainPIN()
        try verifier.spendEquivalentTime(pin, user: user, pepper: try call.store.pepper())
        // Say what a first wrong PIN of an enrolled user would say: no enumeration by message.
        var firstFailure = LockoutRecord()
        firstFailure.failures = 1
        firstFailure.lastFailure = verifier.clock.now()
        let status = call.configuration.lockout.status(of: firstFailure, at: verifier.clock.now())
        call.tell(Messages.text(for: .incorrect(status)) ?? "Incorrect PIN.")
        call.pam.log(LOG_NOTICE, "authentication failure for \(user): \(known ? "no PIN enrolled" : "unknown account")")
        return unknownCode
    }

    /// The PIN from PAM_AUTHTOK (use_first_pass, try_first_pass) or from the conversation.
    private func obtainPIN() throws -> SecretBytes {
        let configuration = call.configuration
        if configuration.useFirstPass || configuration.tryFirstPass {
            do {
                if let token = try call.pam.tokenItem(old: false, format: configuration.format) { return token }
            } catch SecureRoomError.malformedPIN where configuration.tryFirstPass {
                // The earlier module's token is not a PIN: ask for one.
            }
            if configuration.useFirstPass {
                throw ModuleResult(code: PAM_AUTH_ERR, log: "use_first_pass: no PIN from an earlier module", priority: LOG_NOTICE)
            }
        }
        do {
            return try call.pam.promptPIN("PIN: ", format: configuration.format)
        } catch SecureRoomError.malformedPIN(let digits) {
            call.tell(Messages.malformed(digits: digits))
            throw SecureRoomError.malformedPIN(digits: digits)
        }
    }

    private func debug(_ line: String) {
        if call.configuration.debug { call.pam.log(LOG_DEBUG, line) }
    }
}

/// A compact description of a tally for log lines.
func describe(_ status: LockoutStatus) -> String {
    switch status {
    case let .open(failures, _, left): return "\(failures) consecutive failures, \(left) before disabled"
    case let .delayed(seconds, failures): return "\(failures) consecutive failures, delayed \(seconds) s"
    case let .disabled(failures): return "disabled after \(failures) consecutive failures"
    }
}
