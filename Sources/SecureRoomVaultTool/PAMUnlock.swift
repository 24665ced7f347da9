// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CPAMClient
import CSecureRoomSystem
import Glibc
import SecureRoomCore
import SecureRoomProgramSupport

/// Runs the PAM service `secureroom-vault` for the invoking user: `pam_authenticate`
/// (the PIN pad, the lockout and, without root, secureroom-helper all apply; one argon2
/// run), then `pam_setcred(PAM_ESTABLISH_CRED)`, where pam_secureroom puts the unlocked
/// key in the user's keyring.
struct PAMUnlock {
    /// The PAM service (shipped as pam/secureroom-vault, installed in /etc/pam.d).
    static let service = "secureroom-vault"

    /// The PIN's form, for the PIN pad.
    let format: PINFormat
    /// Read the PIN as a line from standard input instead of the PIN pad.
    let fromStdin: Bool

    /// Authenticates `user` and establishes the credential; returns the PAM code of the
    /// first step that failed, or PAM_SUCCESS.
    func run(for user: UserName) -> Int32 {
        let context = Unmanaged.passRetained(ConversationContext(format: format, fromStdin: fromStdin))
        defer { context.release() }
        var conversation = pam_conv(conv: converse, appdata_ptr: context.toOpaque())
        var handle: OpaquePointer?
        var code = pam_start(Self.service, user.rawValue, &conversation, &handle)
        guard code == PAM_SUCCESS, let handle else { return code }
        code = pam_authenticate(handle, 0)
        if code == PAM_SUCCESS { code = pam_setcred(handle, Int32(PAM_ESTABLISH_CRED)) }
        pam_end(handle, code)
        return code
    }

    /// libpam's description of `code`.
    static func describe(_ code: Int32) -> String { String(cString: pam_strerror(nil, code)) }
}

/// What the conversation function needs; passed through `appdata_ptr`.
private final class ConversationContext {
    let format: PINFormat
    let fromStdin: Bool
    init(format: PINFormat, fromStdin: Bool) {
        self.format = format
        self.fromStdin = fromStdin
    }
}

/// The conversation: hidden prompts read a PIN (PIN pad on a terminal, else a line),
/// messages go to standard error. Responses are malloc'd, as libpam frees them.
private let converse:
    @convention(c) (
        Int32, UnsafeMutablePointer<UnsafePointer<pam_message>?>?,
        UnsafeMutablePointer<UnsafeMutablePointer<pam_response>?>?,
        UnsafeMutableRawPointer?
    ) -> Int32 = { count, messages, responses, data in
        guard count > 0, let messages, let responses, let data,
            let replies = calloc(Int(count), MemoryLayout<pam_response>.stride)?.assumingMemoryBound(
                to: pam_response.self)
        else { return PAM_CONV_ERR }
        let context = Unmanaged<ConversationContext>.fromOpaque(data).takeUnretainedValue()
        for index in 0..<Int(count) {
            guard let message = messages[index]?.pointee else { continue }
            let text = message.msg.map { String(cString: $0) } ?? ""
            switch message.msg_style {
            case PAM_PROMPT_ECHO_OFF:
                guard let pin = try? PINEntry.read(prompt: text, format: context.format, forceLine: context.fromStdin),
                    let response = malloc(pin.count + 1)
                else { return abandon(replies, answered: index) }
                pin.withUnsafeBytes {
                    if let base = $0.baseAddress { response.copyMemory(from: base, byteCount: $0.count) }
                }
                response.storeBytes(of: 0, toByteOffset: pin.count, as: UInt8.self)
                replies[index].resp = response.assumingMemoryBound(to: CChar.self)
            case PAM_ERROR_MSG, PAM_TEXT_INFO:
                ToolOutput.writeError(text + "\n")
            default:
                // No visible-echo questions: the vault asks only for the PIN.
                return abandon(replies, answered: index)
            }
        }
        responses.pointee = replies
        return PAM_SUCCESS
    }

/// A conversation that fails after answering `answered` prompts: those answers (PINs) are
/// wiped before they are freed, then the array; PAM_CONV_ERR.
private func abandon(_ replies: UnsafeMutablePointer<pam_response>, answered: Int) -> Int32 {
    for index in 0..<answered {
        if let response = replies[index].resp { sr_explicit_bzero(response, strlen(response)) }
        free(replies[index].resp)
    }
    free(replies)
    return PAM_CONV_ERR
}
