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
    /// Ask for the PIN with this pinentry instead (`unlock --pinentry`); the stack's
    /// messages are shown in it, the last one above the next PIN field.
    var pinentry: Pinentry? = nil

    /// What the last `run` learnt besides its code.
    struct Result {
        /// The PAM code of the first step that failed, or PAM_SUCCESS.
        let code: Int32
        /// The last message the stack sent (a wrong PIN's, a lockout's), if any.
        let lastMessage: String?
        /// The user cancelled the pinentry.
        let cancelled: Bool
        /// Why no PIN could be read (no input, not a PIN), if that ended the try.
        let inputFailure: String?
    }

    /// Authenticates `user` and establishes the credential: the PAM code of the first step
    /// that failed, or PAM_SUCCESS, and what else the try learnt. `error` is shown above a
    /// pinentry's PIN field (the last try's message).
    func run(for user: UserName, error: String?) -> Result {
        let state = ConversationContext(format: format, fromStdin: fromStdin, pinentry: pinentry, error: error)
        let context = Unmanaged.passRetained(state)
        defer { context.release() }
        var conversation = pam_conv(conv: converse, appdata_ptr: context.toOpaque())
        var handle: OpaquePointer?
        var code = sr_pam_start(Self.service, user.rawValue, &conversation, &handle)
        guard code == PAM_SUCCESS, let handle else {
            return Result(code: code, lastMessage: nil, cancelled: false, inputFailure: nil)
        }
        code = sr_pam_authenticate(handle, 0)
        if code == PAM_SUCCESS { code = sr_pam_setcred(handle, Int32(PAM_ESTABLISH_CRED)) }
        sr_pam_end(handle, code)
        return Result(
            code: code, lastMessage: state.lastMessage, cancelled: state.cancelled, inputFailure: state.inputFailure)
    }

    /// libpam's description of `code`.
    static func describe(_ code: Int32) -> String { String(cString: sr_pam_strerror(nil, code)) }
}

/// What the conversation function needs; passed through `appdata_ptr`.
private final class ConversationContext {
    let format: PINFormat
    let fromStdin: Bool
    let pinentry: Pinentry?
    /// Shown above the next pinentry field, then cleared.
    var error: String?
    var lastMessage: String?
    var cancelled = false
    var inputFailure: String?
    init(format: PINFormat, fromStdin: Bool, pinentry: Pinentry?, error: String?) {
        (self.format, self.fromStdin, self.pinentry, self.error) = (format, fromStdin, pinentry, error)
    }

    /// The PIN: from the pinentry (nil and `cancelled` if the user cancelled it), else
    /// from the PIN pad or standard input.
    func pin(prompt: String) -> SecretBytes? {
        guard let pinentry else {
            do { return try PINEntry.read(prompt: prompt, format: format, forceLine: fromStdin) } catch {
                inputFailure = ToolOutput.message(for: error) ?? "\(error)"
                return nil
            }
        }
        defer { error = nil }
        do {
            try pinentry.show(
                title: localized("SecureRoom vault"),
                description: localized(
                    "An application asks for your secrets. Type your PIN to unlock your SecureRoom vault."),
                prompt: Substring(prompt).trimmingSpaces(), error: error)
            guard let pin = try pinentry.readPIN() else {
                cancelled = true
                return nil
            }
            return pin
        } catch {
            return nil
        }
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
                guard let pin = context.pin(prompt: text), let response = malloc(pin.count + 1)
                else { return abandon(replies, answered: index) }
                pin.withUnsafeBytes {
                    if let base = $0.baseAddress { response.copyMemory(from: base, byteCount: $0.count) }
                }
                response.storeBytes(of: 0, toByteOffset: pin.count, as: UInt8.self)
                replies[index].resp = response.assumingMemoryBound(to: CChar.self)
            case PAM_ERROR_MSG, PAM_TEXT_INFO:
                context.lastMessage = text
                context.error = text
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
