// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// The vault's data key wrapped a second time, under a recovery key shown to the user
/// once (docs/FORMAT.md §7). Kept apart from the credential so that a new PIN set by an
/// administrator, a `reset --remove-pin` or a `wipe_after` erase leaves it in place.
public struct RecoveryRecord: Equatable, Sendable {
    /// The record's first line.
    static let header = "SECUREROOM-RECOVERY/1"
    /// Largest record file accepted.
    static let maximumSize = 1024
    /// Length of the HKDF salt.
    public static let saltLength = 16

    /// The user this record belongs to.
    public var user: UserName
    /// HKDF salt for the recovery KEK.
    public var salt: [UInt8]
    /// The DEK wrapped under the recovery KEK.
    public var vaultKey: [UInt8]
    /// When the recovery key was made (Unix seconds).
    public var created: Int64

    /// Creates a record from its fields.
    public init(user: UserName, salt: [UInt8], vaultKey: [UInt8], created: Int64) {
        self.user = user
        self.salt = salt
        self.vaultKey = vaultKey
        self.created = created
    }

    /// Parses a record file; throws `corruptRecord` for anything not exactly per FORMAT.md.
    public init(parsing bytes: [UInt8], path: String) throws {
        let text = try RecordText(
            parsing: bytes, header: Self.header,
            keys: ["user", "salt", "vault-key", "created"], path: path)
        do {
            user = try UserName(String(try text.required("user")))
        } catch SecureRoomError.invalidUserName {
            throw SecureRoomError.corruptRecord(path: path, reason: "invalid user")
        }
        salt = try text.hex("salt", count: Self.saltLength)
        vaultKey = try text.hex("vault-key", count: VaultKey.wrappedLength)
        created = try text.number("created", in: 0...Int64.max)
    }

    /// The record file's bytes.
    public func serialized() -> [UInt8] {
        RecordText.render(
            header: Self.header,
            [
                ("user", user.rawValue),
                ("salt", Hex.encode(salt)),
                ("vault-key", Hex.encode(vaultKey)),
                ("created", String(created)),
            ])
    }
}
