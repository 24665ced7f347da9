// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CPAMClient
import CSecureRoomSystem
import Glibc
import SecureRoomCore
import SecureRoomProgramSupport

/// Step 7 of an `enrol` request: the account's password, proven through the PAM service
/// secureroom-enrol (`pam_authenticate`, then `pam_acct_mgmt`), whose conversation is
/// relayed to the caller as `HelperConversation` lines. What the stack does with a wrong
/// password (pam_unix's delay and log line, pam_faillock's count) happens as at any
/// login; SecureRoom's own PIN counter is not touched, and pam_secureroom ignores this
/// service (a PIN is never proof for creating a PIN).
struct PasswordCheck {
    /// The account whose password is checked.
    let user: UserName

    /// nil if the password was accepted, else PAM's reason.
    func run() -> String? {
        var conversation = pam_conv(conv: relay, appdata_ptr: nil)
        var handle: OpaquePointer?
        var code = sr_pam_start(HelperProtocol.enrolService, user.rawValue, &conversation, &handle)
        guard code == PAM_SUCCESS, let handle else { return String(cString: sr_pam_strerror(nil, code)) }
        code = sr_pam_authenticate(handle, Int32(PAM_DISALLOW_NULL_AUTHTOK))
        if code == PAM_SUCCESS { code = sr_pam_acct_mgmt(handle, Int32(PAM_DISALLOW_NULL_AUTHTOK)) }
        let reason = code == PAM_SUCCESS ? nil : String(cString: sr_pam_strerror(handle, code))
        sr_pam_end(handle, code)
        return reason
    }
}

/// The relay: each message becomes one line to the caller; a question waits for one line
/// back (at most `HelperConversation.maximumAnswerLength` bytes), copied into a malloc'd
/// response (libpam frees it). Any failure wipes the answers given so far: PAM_CONV_ERR.
private let relay:
    @convention(c) (
        Int32, UnsafeMutablePointer<UnsafePointer<pam_message>?>?,
        UnsafeMutablePointer<UnsafeMutablePointer<pam_response>?>?,
        UnsafeMutableRawPointer?
    ) -> Int32 = { count, messages, responses, _ in
        guard count > 0, count <= 32, let messages, let responses,
            let replies = calloc(Int(count), MemoryLayout<pam_response>.stride)?.assumingMemoryBound(
                to: pam_response.self)
        else { return PAM_CONV_ERR }
        func abandon(_ answered: Int) -> Int32 {
            for index in 0..<answered {
                if let response = replies[index].resp { sr_explicit_bzero(response, strlen(response)) }
                free(replies[index].resp)
            }
            free(replies)
            return PAM_CONV_ERR
        }
        for index in 0..<Int(count) {
            guard let message = messages[index]?.pointee else { return abandon(index) }
            let text = message.msg.map { String(cString: $0) } ?? ""
            let line: HelperConversation
            switch message.msg_style {
            case PAM_PROMPT_ECHO_OFF: line = .askSecret(text)
            case PAM_PROMPT_ECHO_ON: line = .ask(text)
            case PAM_ERROR_MSG: line = .sayError(text)
            case PAM_TEXT_INFO: line = .say(text)
            default: return abandon(index)
            }
            writeToCaller(line.line)
            guard line.isQuestion else { continue }
            // A caller that never answers gets no setuid process waiting for ever.
            let answer: SecretBytes
            do {
                answer = try HiddenLine.readPiped(
                    limit: HelperConversation.maximumAnswerLength,
                    within: InputTimeLimit(seconds: HelperConversation.answerSeconds))
            } catch PINEntry.Failure.timedOut(let seconds) {
                SystemLog.notice("ended the password conversation of uid \(getuid()): no answer within \(seconds) s")
                return abandon(index)
            } catch {
                return abandon(index)
            }
            guard let response = malloc(answer.count + 1) else { return abandon(index) }
            answer.withUnsafeBytes {
                if let base = $0.baseAddress { response.copyMemory(from: base, byteCount: $0.count) }
            }
            response.storeBytes(of: 0, toByteOffset: answer.count, as: UInt8.self)
            replies[index].resp = response.assumingMemoryBound(to: CChar.self)
        }
        responses.pointee = replies
        return PAM_SUCCESS
    }
