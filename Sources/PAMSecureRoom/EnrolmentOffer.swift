// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomPAM
import Glibc
import SecureRoomCore

/// `enrol=offer|require` on an `auth` line after the primary authentication (the
/// secureroom-enrol profile, docs/SECURITY.md §6): a user without a PIN, who has just
/// proved their password, is asked whether to create one, and if so types it twice.
/// Nothing here can fail the login or let anyone in: the caller returns PAM_IGNORE
/// whatever happens, and every failure becomes a log line.
struct EnrolmentOffer {
    /// The call being served.
    let call: ModuleCall

    /// New PINs typed before giving up (each refusal is told).
    static let tries = 3

    /// Offers, and enrols on "y" or "yes". Never throws.
    func run() {
        do { try offer() } catch {
            let result = ModuleResult(for: error, user: call.currentUser)
            call.pam.log(
                LOG_ERR,
                "PIN enrolment of \(call.currentUser.map(UserName.quoted) ?? "?") failed: \(result.log ?? "\(error)")")
            call.tell(
                localized(
                    "No PIN was created: the system could not store it. You can try again later with "
                        + "'secureroom enrol'."))
        }
    }

    private func offer() throws {
        let configuration = call.configuration
        let authority = call.authority
        guard authority.readsRecords else {
            return call.debug("enrolment needs root (the state is root's); not offered")
        }
        if call.ignoresTransaction() { return }
        let (user, uid) = try call.resolveUser()
        guard let uid, !call.isExempt(uid) else { return }
        guard case .none = try authority.standing(of: user) else { return }
        if let group = configuration.enrolGroup, !user.isMember(ofGroup: group) {
            return call.debug("\(user) is not in group \(UserName.quoted(group)) (enrol_group); not offered")
        }
        let now = SystemClock().now().wallSeconds
        if configuration.enrol == .offer, let declined = try authority.enrolmentDeclined(by: user),
            !declined.allowsOffer(at: now, snooze: configuration.enrolSnooze)
        {
            return call.debug(
                "\(user) declined a PIN at \(declined.declined); not asked again before enrol_snooze has passed")
        }
        guard !call.isSilent else { return call.debug("silent: a PIN cannot be offered to \(user)") }
        let service = call.pam.item(PAM_SERVICE).map(UserName.quoted) ?? "?"
        guard
            let answer = call.pam.ask(
                localized(
                    "Create a {count}-digit PIN for this computer? [y/N] ",
                    ["count": String(configuration.format.digits)]))
        else {
            return call.pam.log(
                LOG_INFO, "PIN enrolment not offered to \(user) (service \(service)): the application cannot ask")
        }
        call.pam.log(
            LOG_INFO, "PIN enrolment offered to \(user) (service \(service), enrol=\(configuration.enrol.rawValue))")
        // TRANSLATORS: the answers that accept the offer "[y/N]", besides "y" and "yes".
        let yes = ["y", "yes", localized("y"), localized("yes")]
        guard yes.contains(Substring(answer).trimmingSpaces().lowercased()) else {
            if configuration.enrol == .offer { try authority.declineEnrolment(by: user) }
            call.pam.log(LOG_INFO, "PIN enrolment declined by \(user)")
            call.inform(localized("No PIN created. You can create one later with 'secureroom enrol'."))
            return
        }
        guard let pin = try NewPINEntry(call: call).read(tries: Self.tries) else {
            call.pam.log(LOG_NOTICE, "PIN enrolment of \(user) abandoned: no acceptable PIN in \(Self.tries) tries")
            call.inform(localized("No PIN created. You can try again with 'secureroom enrol'."))
            return
        }
        let vault = try authority.enrolAtLogin(pin, for: user, vault: configuration.enrolVault)
        call.pam.log(
            LOG_NOTICE,
            "PIN created by \(user) at login (service "
                + "\(service)\(vault != nil ? "; vault key and recovery key made" : ""))"
        )
        call.inform(localized("PIN created. Next time you can log in with it."))
        // The password just accepted (pam_unix leaves it as PAM_AUTHTOK): only its form is looked at.
        if (try? call.pam.tokenItem(old: false, format: configuration.format)) != nil {
            call.inform(Messages.pinShapedPassword(digits: configuration.format.digits))
        }
        if let vault {
            call.pam.info(Messages.recoveryKeyShownOnce(vault.recoveryKey, user: user))
            try call.pam.stashVaultKey(vault.vaultKey, for: user)
        }
    }
}
