import Glibc
import SecureRoomCore
import SecureRoomToolSupport

/// Step 7 of HelperMain: one request on the shared core. Says `ready` only when a
/// check can happen, then reads the PIN(s) from standard input and logs the outcome in
/// the module's words.
struct HelperSession {
    /// The checked request.
    let invocation: HelperInvocation
    /// The state, as configured in /etc/security/secureroom.conf.
    let store: StateStore

    /// Runs the request; the PIN changed only if a `change` returns `.success`.
    func run() throws -> PINVerifier.Outcome {
        let authority = LocalPINAuthority(store: store)
        let format = store.configuration.format
        let user = invocation.user
        let outcome: PINVerifier.Outcome
        switch invocation.request {
        case .verify:
            outcome = try authority.check(user) {
                announceReady()
                return try PINEntry.readLine(format: format)
            }
        case .change:
            // Both PINs are read, and the new one judged, before the current one is
            // checked: a change the policy refuses costs no attempt.
            let policy = PINPolicy(blocklist: try Blocklist.load(store.configuration.blocklist))
            var accepted: SecretBytes?
            outcome = try authority.change(user, current: {
                announceReady()
                let current = try PINEntry.readLine(format: format)
                let new = try PINEntry.readLine(format: format)
                if let reason = policy.rejections(of: new).first { throw SecureRoomError.pinRejected(reason.description) }
                accepted = new
                return current
            }, new: {
                guard let accepted else { throw SecureRoomError.pinRejected("no new PIN") }
                return accepted
            })
        }
        let subject = "\(user) (uid \(invocation.uid))"
        for line in Messages.logLines(for: outcome, subject: subject) { SystemLog.log(line.priority, line.text) }
        guard case .success = outcome else { return outcome }
        if invocation.request == .change { SystemLog.notice("PIN changed for \(subject)") }
        // The argon2 output is not sent anywhere; let it be wiped before privileges drop.
        return .success(master: nil)
    }

    /// Tells the caller to send the PIN(s) now.
    private func announceReady() { writeToCaller(HelperProtocol.readyLine) }
}

/// Writes one protocol line to standard output (the caller's pipe or socket).
func writeToCaller(_ text: String) {
    let line = Array((text + "\n").utf8)
    var offset = 0
    while offset < line.count {
        let written = line[offset...].withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }
        offset += written
    }
}
