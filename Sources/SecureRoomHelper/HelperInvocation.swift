// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc
import SecureRoomCore

/// The helper's answers are English on the wire (it never sets a locale). Texts marked
/// with `translate` are in the message catalogue, so its caller shows them in the user's
/// language (docs/DESIGN.md §13). The helper's one `translate`, for all its files.
let translate = Translation.english

/// A refused request: `reason` goes back to the caller, `detail` to the system log.
struct HelperRefusal: Error {
    /// What the caller is told.
    let reason: String
    /// What the log says (defaults to the reason).
    let detail: String

    init(_ reason: String, detail: String? = nil) {
        self.reason = reason
        self.detail = detail ?? reason
    }
}

/// Steps 1-3 of HelperMain: a request from the closed set, for the caller's own account.
struct HelperInvocation {
    /// What was asked.
    let request: HelperProtocol.Request
    /// The caller's account (the only one the helper will touch).
    let user: UserName
    /// The caller's real uid.
    let uid: uid_t

    /// Checks the arguments against the caller's real uid; throws `HelperRefusal`.
    init(arguments: [String], caller: uid_t) throws {
        let usage =
            "usage: secureroom-helper "
            + HelperProtocol.Request.allCases.map(\.rawValue).joined(separator: "|") + " USER"
        guard arguments.count == 3, let request = HelperProtocol.Request(rawValue: arguments[1]) else {
            throw HelperRefusal(
                usage,
                detail: "bad request (\(arguments.dropFirst().prefix(3).map(UserName.quoted).joined(separator: " ")))")
        }
        guard caller != 0 else {
            throw HelperRefusal(translate("root checks PINs without secureroom-helper"))
        }
        let asked = UserName.quoted(arguments[2])
        guard let user = try? UserName(arguments[2]), user.accountID() == caller,
            UserName.accountName(of: caller) == user.rawValue
        else {
            throw HelperRefusal(
                "only your own PIN can be checked or changed",
                detail: "asked to \(request.rawValue) the PIN of \(asked), not its own account")
        }
        self.request = request
        self.user = user
        uid = caller
    }
}
