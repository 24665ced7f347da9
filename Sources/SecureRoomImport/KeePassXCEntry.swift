// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomSystem
import SecureRoomBase
import SecureRoomVault

/// One entry of a KeePassXC export, CSV (`KeePassXCExport`) or XML (`KeePassXCXML`), and
/// how `import --from keepassxc` turns entries into secrets, the same for both.
struct KeePassXCEntry: Equatable {
    /// The group path without the root group's name ("" for the root group itself).
    var group: String
    /// The entry's title.
    var title: String
    /// Its user name.
    var username: String
    /// Its password.
    var password: String
    /// Its URL.
    var url: String

    /// `entries` as secrets, in order; nil stands for a CSV row whose fields do not match
    /// the header. Each entry with a password becomes the secret titled GROUP/TITLE
    /// (`ImportTitles` for a title seen before; "untitled" for an empty title): the
    /// password as its value, TITLE as its label, and the attributes `username`, `url` and
    /// `keepassxc-group` where they are not empty. Entries without a password, and nil,
    /// are counted as unreadable.
    static func batch(_ entries: [KeePassXCEntry?]) -> ImportBatch {
        var batch = ImportBatch()
        var titles = ImportTitles()
        for (number, entry) in entries.enumerated() {
            guard let entry else {
                batch.unreadable.append(("entry \(number + 1)", "its fields do not match the header's columns"))
                continue
            }
            let name = entry.title.isEmpty ? "untitled" : entry.title
            let title = titles.unique(entry.group.isEmpty ? name : entry.group + "/" + name)
            guard !entry.password.isEmpty else {
                batch.unreadable.append((title, "entry \(number + 1) has no password"))
                continue
            }
            let attributes = ["username": entry.username, "url": entry.url, "keepassxc-group": entry.group]
                .filter { !$0.value.isEmpty }
            var bytes = Array(entry.password.utf8)
            defer { bytes.withUnsafeMutableBytes { sr_explicit_bzero($0.baseAddress, $0.count) } }
            batch.secrets.append(
                VaultStore.NewSecret(
                    title: title, value: bytes.withUnsafeBytes { SecretBytes(copying: $0) }, label: name,
                    attributes: attributes))
        }
        return batch
    }
}
