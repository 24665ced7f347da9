import CSecureRoomPAM
import SecureRoomCore

/// A typed view of `pam_handle_t *`: the libpam calls the module makes, each through
/// the C shim (CSecureRoomPAM), none of them variadic from Swift's side.
struct PAMHandle {
    /// The raw handle.
    let raw: OpaquePointer

    /// PAM_USER, asking through the conversation if the application did not set it.
    func user() throws -> String {
        var name: UnsafePointer<CChar>?
        let code = sr_pam_get_user(raw, &name)
        guard code == PAM_SUCCESS, let name else { throw ModuleResult(code: code == PAM_SUCCESS ? PAM_USER_UNKNOWN : code,
                                                                      log: "cannot determine the user name") }
        return String(cString: name)
    }

    /// Prompts with echo off and returns the response as a PIN of `format`.
    /// The response buffer is wiped and freed here; only `SecretBytes` leaves.
    func promptPIN(_ prompt: String, format: PINFormat) throws -> SecretBytes {
        var response: UnsafeMutablePointer<CChar>?
        let code = sr_pam_prompt_secret(raw, prompt, &response)
        defer { sr_pam_drop_response(response) }
        guard code == PAM_SUCCESS, let response else {
            throw ModuleResult(code: PAM_CONV_ERR, log: "conversation failed (\(code))")
        }
        return try format.pin(fromCString: UnsafePointer(response))
    }

    /// PAM_AUTHTOK (or PAM_OLDAUTHTOK) as a PIN of `format`, or nil if unset.
    func tokenItem(old: Bool, format: PINFormat) throws -> SecretBytes? {
        var token: UnsafePointer<CChar>?
        guard sr_pam_get_authtok_item(raw, old ? 1 : 0, &token) == PAM_SUCCESS, let token else { return nil }
        return try format.pin(fromCString: token)
    }

    /// Sends an error message through the conversation.
    func error(_ message: String) { _ = sr_pam_error(raw, message) }

    /// Logs through pam_syslog (LOG_AUTHPRIV, tagged with the service).
    func log(_ priority: Int32, _ message: String) { sr_pam_syslog(raw, priority, message) }

    /// Asks the application to delay a failure report by `microseconds`.
    func requestFailureDelay(microseconds: UInt32) { _ = sr_pam_fail_delay(raw, microseconds) }
}
