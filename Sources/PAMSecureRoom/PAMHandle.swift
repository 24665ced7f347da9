// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomPAM
import SecureRoomCore

/// A typed view of `pam_handle_t *`: the libpam calls the module makes, each through
/// the C shim (CSecureRoomPAM), none of them variadic from Swift's side.
struct PAMHandle {
    /// The raw handle.
    let raw: OpaquePointer
    /// The management group of the call, as pam_syslog names it in a line's prefix
    /// ("auth", "setcred", "account", "session", "chauthtok").
    let group: String

    /// PAM_USER, asking through the conversation if the application did not set it.
    func user() throws -> String {
        var name: UnsafePointer<CChar>?
        let code = sr_pam_get_user(raw, &name)
        guard code == PAM_SUCCESS, let name else {
            throw ModuleResult(
                code: code == PAM_SUCCESS ? PAM_USER_UNKNOWN : code,
                log: "cannot determine the user name: \(code == PAM_SUCCESS ? "no name" : describe(code))")
        }
        return String(cString: name)
    }

    /// Prompts with echo off and returns the response as a PIN of `format`.
    /// The response buffer is wiped and freed here; only `SecretBytes` leaves.
    func promptPIN(_ prompt: String, format: PINFormat) throws -> SecretBytes {
        try withSecretAnswer(to: prompt) { response in
            guard let response else {
                throw ModuleResult(code: PAM_CONV_ERR, log: "conversation returned no answer to the prompt")
            }
            return try format.pin(fromCString: UnsafePointer(response))
        }
    }

    /// Prompts with echo off and hands the answer (nil: none) to `body`; the buffer is
    /// wiped and freed when `body` returns or throws.
    private func withSecretAnswer<T>(
        to prompt: String, _ body: (UnsafeMutablePointer<CChar>?) throws -> T
    ) throws -> T {
        var response: UnsafeMutablePointer<CChar>?
        let code = sr_pam_prompt_secret(raw, prompt, &response)
        defer { sr_pam_drop_response(response) }
        guard code == PAM_SUCCESS else {
            throw ModuleResult(code: PAM_CONV_ERR, log: "conversation failed: \(describe(code))")
        }
        return try body(response)
    }

    /// What the one field of `pin_or_password` was answered with.
    enum FieldAnswer {
        /// Exactly `digits=` digits: the PIN.
        case pin(SecretBytes)
        /// Anything else, now PAM_AUTHTOK for the next module; not kept here.
        case handedOn
        /// Nothing: never handed on.
        case empty
    }

    /// Asks `prompt` for the PIN or the password (`pin_or_password`, pam/README.md "One
    /// field"): an answer of exactly `format`'s digits is the PIN; any other non-empty
    /// answer becomes PAM_AUTHTOK, from the conversation's buffer, which is then wiped.
    func promptPINOrPassword(_ prompt: String, format: PINFormat) throws -> FieldAnswer {
        try withSecretAnswer(to: prompt) { response in
            guard let response, response.pointee != 0 else { return .empty }
            do {
                return .pin(try format.pin(fromCString: UnsafePointer(response)))
            } catch SecureRoomError.malformedPIN {
                let set = sr_pam_set_authtok(raw, response)
                guard set == PAM_SUCCESS else {
                    throw ModuleResult(code: PAM_SYSTEM_ERR, log: "cannot hand the password on: \(describe(set))")
                }
                return .handedOn
            }
        }
    }

    /// PAM_AUTHTOK (or PAM_OLDAUTHTOK) as a PIN of `format`, or nil if unset.
    func tokenItem(old: Bool, format: PINFormat) throws -> SecretBytes? {
        var token: UnsafePointer<CChar>?
        guard sr_pam_get_authtok_item(raw, old ? 1 : 0, &token) == PAM_SUCCESS, let token else { return nil }
        return try format.pin(fromCString: token)
    }

    /// Prompts with echo on (a question, not a secret) and returns the answer; nil when
    /// the conversation cannot ask or gives no answer.
    func ask(_ prompt: String) -> String? {
        var response: UnsafeMutablePointer<CChar>?
        let code = sr_pam_prompt_visible(raw, prompt, &response)
        defer { sr_pam_drop_response(response) }
        guard code == PAM_SUCCESS, let response else { return nil }
        return String(cString: response)
    }

    /// Markers kept with the handle from one management group to the next.
    enum Flag: String {
        /// `auth` accepted a PIN that must be changed (`account` and `password` act on it).
        case pinExpired = "pam_secureroom_pin_expired"
    }

    /// Sets `flag` on the handle.
    func setFlag(_ flag: Flag) { _ = sr_pam_set_flag(raw, flag.rawValue, 1) }
    /// Removes `flag` from the handle.
    func clearFlag(_ flag: Flag) { _ = sr_pam_set_flag(raw, flag.rawValue, 0) }
    /// Whether `flag` is set on the handle.
    func hasFlag(_ flag: Flag) -> Bool { sr_pam_has_flag(raw, flag.rawValue) != 0 }

    /// A string item (PAM_USER, PAM_SERVICE, PAM_RHOST, PAM_TTY, ...), nil if unset.
    func item(_ type: Int32) -> String? {
        var item: UnsafeRawPointer?
        guard pam_get_item(raw, type, &item) == PAM_SUCCESS, let item else { return nil }
        return String(cString: item.assumingMemoryBound(to: CChar.self))
    }

    /// Sends an informational message through the conversation.
    func info(_ message: String) { _ = sr_pam_info(raw, message) }

    /// Secrets kept with the handle from one call to the next (wiped by libpam at pam_end).
    enum Stash: String {
        /// The vault key `auth` unlocked, for setcred or open_session (`VaultSession`).
        case vaultKey = "pam_secureroom_vault_key"
        /// A salted HKDF of the expired PIN `auth` accepted, so `account` can refuse it as
        /// its own replacement (`AccountCheck`).
        case expiredPINCheck = "pam_secureroom_expired_pin_check"
        /// `auth` accepted this user's PIN in this transaction (a one-byte marker, kept for
        /// the user it was accepted for): an `authsucc` line after it must not take that
        /// for the password, and `account` and `open_session` need not read what it
        /// answered (`markPINAccepted`).
        case pinAccepted = "pam_secureroom_pin_accepted"
    }

    /// Marks that `user`'s PIN was accepted in this transaction.
    func markPINAccepted(for user: UserName) throws {
        try keep([UInt8(1)].withUnsafeBytes { SecretBytes(copying: $0) }, as: .pinAccepted, for: user)
    }

    /// Whether `user`'s PIN (not another user's) was accepted in this transaction.
    func pinAccepted(by user: UserName) -> Bool { kept(.pinAccepted, for: user) != nil }

    /// Keeps a copy of `secret`, belonging to `user`, with the handle under `stash`.
    func keep(_ secret: SecretBytes, as stash: Stash, for user: UserName) throws {
        let code = secret.withUnsafeBytes {
            sr_pam_stash(raw, stash.rawValue, user.rawValue, $0.bindMemory(to: UInt8.self).baseAddress, $0.count)
        }
        guard code == PAM_SUCCESS else {
            throw ModuleResult(code: code, log: "cannot keep \(stash) (pam_set_data: \(code))")
        }
    }

    /// A copy of what is kept under `stash` for `user`, left in place; nil if there is
    /// none or it belongs to another user.
    func kept(_ stash: Stash, for user: UserName) -> SecretBytes? {
        var length = 0
        guard let stashed = sr_pam_stashed(raw, stash.rawValue, user.rawValue, &length) else { return nil }
        return SecretBytes(copying: UnsafeRawBufferPointer(start: stashed, count: length))
    }

    /// Wipes and forgets what is kept under `stash`.
    func drop(_ stash: Stash) { sr_pam_drop(raw, stash.rawValue) }

    /// Keeps `user`'s unlocked vault key with the handle until `takeVaultKey`.
    func stashVaultKey(_ key: SecretBytes, for user: UserName) throws { try keep(key, as: .vaultKey, for: user) }

    /// The stashed vault key, removed (and wiped) from the handle; nil if there is none,
    /// or if it belongs to another user than `user` (then it is dropped unused).
    func takeVaultKey(for user: UserName) -> SecretBytes? {
        defer { drop(.vaultKey) }
        return peekVaultKey(for: user)
    }

    /// A copy of the stashed vault key, left in place; nil as for `takeVaultKey`.
    func peekVaultKey(for user: UserName) -> SecretBytes? {
        kept(.vaultKey, for: user).flatMap { $0.count == VaultKey.length ? $0 : nil }
    }

    /// Wipes and forgets any stashed vault key.
    func dropVaultKey() { drop(.vaultKey) }

    /// Sends an error message through the conversation.
    func error(_ message: String) { _ = sr_pam_error(raw, message) }

    /// Logs `message`: as a journal entry of kind `event` about `user` where journald
    /// receives syslog (`JournalEntry`, with this transaction's service, tty, rhost and
    /// ruser), else through pam_syslog. Either way the text is pam_syslog's line:
    /// "pam_secureroom(SERVICE:GROUP): message", LOG_AUTHPRIV.
    func log(_ priority: Int32, _ message: String, event: LogEvent? = nil, user: String? = nil) {
        let service = item(PAM_SERVICE)
        var entry = JournalEntry(
            message: "pam_secureroom(\(service ?? "<unknown>"):\(group)): \(message)", priority: priority, event: event)
        entry.add("USER", user)
        entry.add("SERVICE", service)
        entry.add("TTY", item(PAM_TTY))
        entry.add("RHOST", item(PAM_RHOST))
        entry.add("RUSER", item(PAM_RUSER))
        if !entry.send() { sr_pam_syslog(raw, priority, message) }
    }

    /// Asks the application to delay a failure report by `microseconds`.
    func requestFailureDelay(microseconds: UInt32) { _ = sr_pam_fail_delay(raw, microseconds) }

    /// libpam's text for `code`, with the number: "Conversation error (19)".
    func describe(_ code: Int32) -> String {
        guard let text = pam_strerror(raw, code) else { return "PAM code \(code)" }
        return "\(String(cString: text)) (\(code))"
    }
}
