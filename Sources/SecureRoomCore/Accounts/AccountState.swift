// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomSystem
import Glibc

/// What the shadow file says about an account, as pam_unix reads it: a PIN must not open
/// an account the administrator closed (docs/DESIGN.md §6).
///
/// - a password hash behind a `!` (`passwd -l`, `usermod -L`) is a locked account; a field
///   that never held a password (`!` or `*` alone, as for system and test accounts) is not;
/// - a shadow expiry date (`chage -E`, `usermod -e`) on or before today is an expired account.
///
/// Accounts without a shadow entry (NIS, LDAP through sssd) are left to their own modules.
/// Reading the shadow file needs root: the module as root and secureroom-helper ask.
public enum AccountState {
    /// Why `user` may not use a PIN now, or nil if nothing in the shadow file forbids it.
    /// `today` is days since the epoch, as shadow counts them.
    public static func refusal(for user: UserName, today: Int = Int(time(nil) / 86_400)) -> String? {
        var entry = spwd()
        var buffer = [CChar](repeating: 0, count: 4096)
        var result: UnsafeMutablePointer<spwd>?
        guard getspnam_r(user.rawValue, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        let hash = entry.sp_pwdp.map { String(cString: $0) } ?? ""
        buffer.withUnsafeMutableBytes { sr_explicit_bzero($0.baseAddress, $0.count) }
        if hash.hasPrefix("!") && hash.count > 1 { return "the account is locked (its password is locked)" }
        if entry.sp_expire >= 0 && today >= entry.sp_expire {
            return "the account expired on \(ISO8601.utc(Int64(entry.sp_expire) * 86_400).prefix(10))"
        }
        return nil
    }
}
