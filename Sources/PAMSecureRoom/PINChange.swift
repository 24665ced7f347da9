// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomPAM
import SecureRoomCore

/// The `password` group (pam_sm_chauthtok): current PIN (checked under the lockout,
/// so it counts as an attempt), new PIN (format and policy), confirmation.
struct PINChange {
    /// The call being served.
    let call: ModuleCall

    /// Runs pam_sm_chauthtok and returns its PAM code.
    func run() throws -> Int32 {
        if call.ignoresTransaction() { return PAM_IGNORE }
        let (user, uid) = try call.resolveUser()
        guard let uid, !call.isExempt(uid) else { return PAM_IGNORE }
        if call.has(PAM_PRELIM_CHECK) {
            // Without root only the helper can tell whether there is a PIN; it will say so.
            if case .none = try call.authority.standing(of: user) { return PAM_IGNORE }
            return PAM_SUCCESS
        }
        let entry = try NewPINEntry(call: call)
        let outcome: PINOutcome
        do {
            outcome = try call.authority.change(user, current: { try call.promptPIN(localized("Current PIN: ")) }) {
                current in
                try entry.readOnce { PINPolicy.refusal(replacing: current, with: $0) }
            }
        } catch SecureRoomError.pinRejected(let reason) {
            throw ModuleResult(
                code: PAM_AUTHTOK_ERR, log: "new PIN for \(user) rejected: \(reason)", priority: LOG_NOTICE)
        } catch is NewPINEntry.Mismatch {
            throw ModuleResult(code: PAM_AUTHTOK_ERR, log: "new PINs for \(user) did not match", priority: LOG_NOTICE)
        }
        if let message = Messages.text(for: outcome) { call.tell(message) }
        switch outcome {
        case .success:
            call.pam.log(LOG_NOTICE, "PIN changed for \(user)")
            return PAM_SUCCESS
        case .incorrect, .repeatedIncorrect:
            call.pam.log(LOG_NOTICE, "PIN change for \(user): wrong current PIN")
            return PAM_AUTH_ERR
        case .locked:
            return PAM_MAXTRIES
        case .notEnrolled:
            return PAM_IGNORE
        }
    }
}
