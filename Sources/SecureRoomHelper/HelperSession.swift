// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomSystem
import Glibc
import SecureRoomCore
import SecureRoomProgramSupport

/// Step 7 of HelperMain: one request on the shared core. Says `ready` only when a
/// check can happen, then reads the PIN(s) from standard input and logs the outcome in
/// the module's words.
struct HelperSession {
    /// The checked request.
    let invocation: HelperInvocation
    /// The state, as configured in /etc/security/secureroom.conf.
    let store: StateStore

    /// Runs the request; the PIN changed only if a `change` returns `.success`. On
    /// success `secrets` holds the key material for the reply (`HelperSecrets`).
    func run(secrets: inout SecretBytes?) throws -> PINVerifier.Outcome {
        let authority = LocalPINAuthority(store: store)
        let format = store.configuration.format
        let user = invocation.user
        let outcome: PINVerifier.Outcome
        var recoveryKey: RecoveryKey?
        switch invocation.request {
        case .verify:
            outcome = try authority.check(user) {
                let limit = announceReady()
                return try PINEntry.readLine(format: format, within: limit)
            }
        case .change:
            // Both PINs are read, and the new one judged, before the current one is
            // checked: a change the policy refuses costs no attempt.
            let policy = PINPolicy(blocklist: try Blocklist.load(store.configuration.blocklist))
            var accepted: SecretBytes?
            outcome = try authority.change(
                user,
                current: {
                    let limit = announceReady()
                    let current = try PINEntry.readLine(format: format, within: limit)
                    let new = try PINEntry.readLine(format: format, within: limit)
                    if let reason = policy.rejections(of: new).first?.description
                        ?? PINPolicy.refusal(replacing: current, with: new)
                    {
                        throw SecureRoomError.pinRejected(reason)
                    }
                    accepted = new
                    return current
                },
                new: { _ in
                    guard let accepted else { throw SecureRoomError.pinRejected("no new PIN") }
                    return accepted
                })
        case .enrol, .enrolReplace, .vaultState, .pinState:
            throw HelperRefusal("not a PIN check", detail: "\(invocation.request.rawValue) reached HelperSession")
        case .setupVault, .replaceVault:
            (outcome, recoveryKey) = try authority.setUpVault(user, replace: invocation.request == .replaceVault) {
                let limit = announceReady()
                return try PINEntry.readLine(format: format, within: limit)
            }
        case .recoverVault:
            // Both lines are read at `ready`; the key is tried before the PIN is checked.
            var pin: SecretBytes?
            outcome = try authority.recoverVault(
                user,
                recoveryKey: {
                    let limit = announceReady()
                    let typed = try HiddenLine.readPiped(limit: 128, within: limit)
                    pin = try PINEntry.readLine(format: format, within: limit)
                    return try typed.withUnsafeBytes { try RecoveryKey(typed: $0) }
                },
                pin: {
                    guard let pin else { throw SecureRoomError.pinRejected("no PIN") }
                    return pin
                })
        }
        let subject = "\(user) (uid \(invocation.uid))"
        for line in Messages.logLines(for: outcome, subject: subject) {
            SystemLog.log(line.priority, line.text, event: line.event, user: user.rawValue)
        }
        guard case .success(let success) = outcome else { return outcome }
        SystemLog.log(LOG_INFO, "PIN accepted for \(subject)", event: .accepted, user: user.rawValue)
        // A PIN that must be changed (set with --expire, expired, or just bound to its own
        // counter in the chip) is not good for a screen locker or a vault unlock, which have
        // no account step to change it in: fail closed, and say how to change it.
        if invocation.request == .verify, try store.credential(for: user)?.mustChange != nil {
            SystemLog.notice("refused \(subject): right PIN, but it must be changed first")
            throw HelperRefusal(
                "your PIN must be changed first: run 'secureroom change', or log in with it at a terminal")
        }
        switch invocation.request {
        case .verify, .enrol, .enrolReplace, .vaultState, .pinState: break
        case .change: SystemLog.notice("PIN changed for \(subject)")
        case .setupVault, .replaceVault: SystemLog.notice("vault key set up for \(subject)")
        case .recoverVault: SystemLog.notice("vault key of \(subject) restored with the recovery key")
        }
        // The caller's own vault key goes back to it (after `verify` and the vault set-ups);
        // a `change` has no use for it.
        if invocation.request != .change {
            secrets = HelperSecrets.encode(vaultKey: success.vaultKey, recoveryKey: recoveryKey)
        }
        return .success(.init(vaultKey: nil))
    }

}

/// Tells the caller to send the PIN(s) now; they must arrive within the returned limit.
func announceReady() -> InputTimeLimit {
    writeToCaller(HelperProtocol.readyLine)
    return InputTimeLimit(seconds: HelperProtocol.pinAnswerSeconds)
}

/// Writes one protocol line to standard output (the caller's pipe or socket), with the
/// key material after a `success` written straight from its buffer.
func writeToCaller(_ text: String, secrets: SecretBytes? = nil) {
    var line = Array(text.utf8)
    if let secrets { line.append(contentsOf: [UInt8](repeating: 0, count: secrets.count)) }
    line.append(UInt8(ascii: "\n"))
    defer { line.withUnsafeMutableBytes { sr_explicit_bzero($0.baseAddress, $0.count) } }
    if let secrets {
        let start = text.utf8.count
        line.withUnsafeMutableBytes { target in
            secrets.withUnsafeBytes { source in
                if let base = source.baseAddress {
                    target.baseAddress?.advanced(by: start).copyMemory(from: base, byteCount: source.count)
                }
            }
        }
    }
    // A caller that closed its end gets nothing; there is no one to tell.
    try? line.withUnsafeBytes {
        try FileDescriptor.writeAll(STDOUT_FILENO, $0) {
            SecureRoomError.system(operation: "write", path: "standard output", errno: errno)
        }
    }
}
