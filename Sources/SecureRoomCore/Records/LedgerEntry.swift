// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// An entry of the chip's ledger (docs/FORMAT.md §1, `users/.tpm-HANDLE`): a PIN index at
/// HANDLE that SecureRoom is about to define, or defined and no record names (any more),
/// and whose it is. `ChipLedger` writes one before every NV_DefineSpace and before a
/// record naming an index is replaced, so every index at SecureRoom's handles is named by
/// a credential, the decoys' record or an entry.
struct LedgerEntry: Equatable, Sendable {
    /// The record's first line.
    static let header = "SECUREROOM-TPM-INDEX/1"
    /// Largest record file accepted.
    static let maximumSize = 256
    /// What every entry's file name starts with; 8 lower-case hex digits of the handle follow.
    static let prefix = ".tpm-"

    /// The user whose PIN the index is or was; nil: the decoys'.
    var user: UserName?
    /// Whether it counts against `user`'s limit (`ChipLedger.perUserLimit`): an index the
    /// user's own change, enrolment or re-derivation defined or left; not an
    /// administrator's.
    var charged: Bool

    /// The entry's file name for `handle`.
    static func fileName(_ handle: UInt32) -> String {
        let digits = String(handle, radix: 16)
        return prefix + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }

    /// The handle a file name of an entry names, nil for any other name.
    static func handle(ofFile name: String) -> UInt32? {
        guard name.hasPrefix(prefix), name.utf8.count == prefix.utf8.count + 8 else { return nil }
        let digits = name.dropFirst(prefix.count)
        guard digits.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return nil }
        return UInt32(digits, radix: 16)
    }

    /// An entry from its fields.
    init(user: UserName?, charged: Bool) {
        self.user = user
        self.charged = charged
    }

    /// Parses a record file; throws `corruptRecord` for anything not exactly per FORMAT.md.
    init(parsing bytes: [UInt8], path: String) throws {
        let text = try RecordText(parsing: bytes, header: Self.header, keys: ["user", "charged"], path: path)
        if let name = text.fields["user"]?.first {
            do {
                user = try UserName(String(name))
            } catch SecureRoomError.invalidUserName {
                throw SecureRoomError.corruptRecord(path: path, reason: "invalid user")
            }
        }
        switch try text.required("charged") {
        case "yes": charged = true
        case "no": charged = false
        default: throw SecureRoomError.corruptRecord(path: path, reason: "charged is neither yes nor no")
        }
        if charged && user == nil {
            throw SecureRoomError.corruptRecord(path: path, reason: "charged to nobody")
        }
    }

    /// The record file's bytes.
    func serialized() -> [UInt8] {
        RecordText.render(
            header: Self.header, (user.map { [("user", $0.rawValue)] } ?? []) + [("charged", charged ? "yes" : "no")])
    }
}
