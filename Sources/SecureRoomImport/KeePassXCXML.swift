// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import SecureRoomVault

/// A KeePassXC XML export (Database > Export > XML File, or `keepassxc-cli export --format
/// xml`: the KeePass 2.x XML, unencrypted) read for `import --from keepassxc`, by
/// `XMLReader`, into the entries the CSV export gives (`KeePassXCEntry`): each entry's
/// Title, UserName, Password and URL, with the path of its group below the root group.
/// Not read: an entry's `<History>` (its earlier versions), and the recycle bin (the group
/// whose UUID `<Meta><RecycleBinUUID>` names, when `<RecycleBinEnabled>` is True) with all
/// it holds. KeePassXC writes a protected value (`ProtectInMemory="True"`) in clear in this
/// export; a value marked `Protected="True"` is encrypted by a database's inner stream (the
/// XML inside a .kdbx file, not an export), and such a file is refused.
public struct KeePassXCXML {
    /// The entries in document order, the recycle bin's left out.
    let entries: [KeePassXCEntry]

    /// Whether `bytes` are XML rather than CSV: after an optional byte-order mark and
    /// whitespace they start with "<?xml" or "<KeePassFile".
    public static func isXML(_ bytes: [UInt8]) -> Bool {
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let rest = bytes[start...].drop { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
        return rest.starts(with: "<?xml".utf8) || rest.starts(with: "<KeePassFile".utf8)
    }

    /// Parses `bytes` (the file, UTF-8), refusing what exceeds `limits` (`XMLReader`'s,
    /// and the number of entries).
    public init(_ bytes: [UInt8], limits: ImportLimits = .defaults) throws {
        let document = try XMLReader.document(bytes, limits: limits)
        guard document.name == "KeePassFile" else {
            throw VaultError.invalid("not a KeePassXC XML export: its root element is <\(document.name)>")
        }
        guard let root = document.child("Root")?.child("Group") else {
            throw VaultError.invalid("not a KeePassXC XML export: it has no <Root><Group>")
        }
        let meta = document.child("Meta")
        let recycleBin =
            meta?.child("RecycleBinEnabled")?.text.lowercased() == "true" ? meta?.child("RecycleBinUUID")?.text : nil
        var entries: [KeePassXCEntry] = []
        if !Self.isRecycleBin(root, recycleBin) {
            try Self.collect(root, path: "", recycleBin: recycleBin, limit: limits.entries, into: &entries)
        }
        self.entries = entries
    }

    /// The entries as secrets, in order.
    public func batch() -> ImportBatch {
        KeePassXCEntry.batch(entries)
    }

    /// Appends the entries of `group` (whose path is `path`) and of its groups, but for
    /// the group whose UUID is `recycleBin`, to `entries`; more than `limit` are refused.
    private static func collect(
        _ group: XMLElementNode, path: String, recycleBin: String?, limit: Int, into entries: inout [KeePassXCEntry]
    ) throws {
        for child in group.children {
            switch child.name {
            case "Entry":
                guard entries.count < limit else {
                    throw XMLReader.failure(line: child.line, "more than \(limit) entries")
                }
                entries.append(try entry(child, group: path))
            case "Group" where !isRecycleBin(child, recycleBin):
                let name = child.child("Name")?.text ?? ""
                try collect(
                    child, path: path.isEmpty ? name : path + "/" + name, recycleBin: recycleBin, limit: limit,
                    into: &entries)
            default: continue
            }
        }
    }

    /// Whether `group` is the recycle bin, the group whose UUID is `recycleBin`.
    private static func isRecycleBin(_ group: XMLElementNode, _ recycleBin: String?) -> Bool {
        guard let recycleBin, !recycleBin.isEmpty else { return false }
        return group.child("UUID")?.text == recycleBin
    }

    /// The `<Entry>` `element` of the group `group`, from its `<String>` key/value pairs
    /// (its `<History>` is not looked at).
    private static func entry(_ element: XMLElementNode, group: String) throws -> KeePassXCEntry {
        var fields: [String: String] = [:]
        for string in element.children where string.name == "String" {
            guard let key = string.child("Key")?.text else {
                throw XMLReader.failure(line: string.line, "a <String> of an entry has no <Key>")
            }
            let value = string.child("Value")
            if value?.attributes["Protected"]?.lowercased() == "true" {
                throw XMLReader.failure(
                    line: string.line,
                    "the entry's \(key) is encrypted (Protected=\"True\"): this is the XML inside a .kdbx file, "
                        + "not an export; export the database to XML with KeePassXC")
            }
            guard fields.updateValue(value?.text ?? "", forKey: key) == nil else {
                throw XMLReader.failure(line: string.line, "an entry has two <String>s with the key \(key)")
            }
        }
        return KeePassXCEntry(
            group: group, title: fields["Title"] ?? "", username: fields["UserName"] ?? "",
            password: fields["Password"] ?? "", url: fields["URL"] ?? "")
    }
}
