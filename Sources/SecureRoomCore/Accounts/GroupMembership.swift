// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc

extension UserName {
    /// Whether the account belongs to `group` (by name), as its primary group or a
    /// supplementary one (getgrouplist, so NSS sources such as LDAP count). False for an
    /// unknown account or group.
    public func isMember(ofGroup group: String) -> Bool {
        guard let account = account(), let wanted = Self.groupID(named: group) else { return false }
        if account.gid == wanted { return true }
        var count: Int32 = 64
        while count <= 65_536 {
            var groups = [gid_t](repeating: 0, count: Int(count))
            var found = count
            if getgrouplist(rawValue, account.gid, &groups, &found) >= 0 {
                return groups.prefix(Int(found)).contains(wanted)
            }
            count = max(found, count * 2)
        }
        return false
    }

    /// The gid of the group called `name` (getgrnam_r), or nil if there is none.
    static func groupID(named name: String) -> gid_t? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 65_536)
        let code = buffer.withUnsafeMutableBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return ERANGE }
            return getgrnam_r(name, &entry, base, bytes.count, &result)
        }
        guard code == 0, result != nil else { return nil }
        return entry.gr_gid
    }
}
