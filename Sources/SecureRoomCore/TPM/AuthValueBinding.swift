// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// A version 2 binding (docs/FORMAT.md §2.1): a sealed object whose authorization value is
/// half of the PIN's argon2 output, proven through PolicyAuthValue and so counted on the
/// chip's dictionary-attack counter, and the HMAC key that tags wrong guesses inside the
/// chip. Read and checked until the PIN's next success binds it again to its own counter
/// (`PinIndexBinding`); never written for a new PIN.
public struct AuthValueBinding: Equatable, Sendable {
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
        sealed = try ObjectBlob(text, public: "tpm-sealed-public", private: "tpm-sealed-private")
        tagKey = try ObjectBlob(text, public: "tpm-tag-public", private: "tpm-tag-private")
    }
}
