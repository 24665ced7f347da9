// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// What a TPM-bound credential record holds of the TPM (docs/FORMAT.md §3): the sealed
/// object whose authorization value is half of the PIN's argon2 output, the HMAC key that
/// tags wrong guesses inside the chip, and the storage key's name when they were made.
public struct TPMBinding: Equatable, Sendable {
    /// The sealed 32-byte secret (marshalled TPM2B_PUBLIC and TPM2B_PRIVATE).
    public var sealed: ObjectBlob
    /// The guess-tag HMAC key (marshalled TPM2B_PUBLIC and TPM2B_PRIVATE).
    public var tagKey: ObjectBlob

    /// A binding from its two objects, made under the same storage key.
    public init(sealed: ObjectBlob, tagKey: ObjectBlob) {
        self.sealed = sealed
        self.tagKey = tagKey
    }

    /// The record lines, in FORMAT.md's order.
    var fields: [(String, String)] {
        [
            ("tpm-parent", Hex.encode(sealed.parentName)),
            ("tpm-sealed-public", Hex.encode(sealed.publicBytes)),
            ("tpm-sealed-private", Hex.encode(sealed.privateBytes)),
            ("tpm-tag-public", Hex.encode(tagKey.publicBytes)),
            ("tpm-tag-private", Hex.encode(tagKey.privateBytes)),
        ]
    }

    /// The record keys a binding adds.
    static let keys = ["tpm-parent", "tpm-sealed-public", "tpm-sealed-private", "tpm-tag-public", "tpm-tag-private"]

    /// Reads the binding's lines; each blob must unmarshal whole.
    init(_ text: RecordText) throws {
        sealed = try Self.object(text, public: "tpm-sealed-public", private: "tpm-sealed-private")
        tagKey = try Self.object(text, public: "tpm-tag-public", private: "tpm-tag-private")
    }

    /// The object stored in the record's `public` and `private` lines, under the storage
    /// key named by `tpm-parent`; it must unmarshal whole.
    static func object(_ text: RecordText, public publicKey: String, private privateKey: String) throws -> ObjectBlob {
        func bytes(_ key: String) throws -> [UInt8] {
            let value = try text.required(key)
            guard value.count % 2 == 0, value.count <= 2 * 1_024, let bytes = Hex.decode(value, count: value.count / 2)
            else {
                throw SecureRoomError.corruptRecord(path: text.path, reason: "malformed \(key)")
            }
            return bytes
        }
        let object = ObjectBlob(
            publicBytes: try bytes(publicKey), privateBytes: try bytes(privateKey),
            parentName: try bytes("tpm-parent"))
        do {
            _ = try object.unmarshalPublic()
            _ = try object.unmarshalPrivate()
        } catch {
            throw SecureRoomError.corruptRecord(path: text.path, reason: "a TPM object does not unmarshal")
        }
        return object
    }
}
