// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// The decoy's tag key (`users/.decoy.tpm`, docs/FORMAT.md §1): once any PIN is bound to
/// the TPM, a check of a name without a PIN (`nopin=fail`) does the chip work a bound
/// PIN's wrong guess does — the lockout state before the prompt, then two commands on one
/// connection (the tag, and in place of the unseal a second HMAC, which the chip does not
/// count) — so that the time of a refusal does not tell who has a PIN.
public struct DecoyTagKey: Equatable, Sendable {
    /// The record's first line.
    static let header = "SECUREROOM-DECOY-TPM/1"
    /// The file in `users/`.
    static let fileName = ".decoy.tpm"

    /// An HMAC key of the TPM's, as `TPMBinding.tagKey`.
    public var tagKey: ObjectBlob

    /// A decoy key from its object.
    public init(tagKey: ObjectBlob) { self.tagKey = tagKey }

    /// Parses the record.
    init(parsing bytes: [UInt8], path: String) throws {
        let text = try RecordText(
            parsing: bytes, header: Self.header,
            keys: ["tpm-parent", "tpm-tag-public", "tpm-tag-private"], path: path)
        tagKey = try TPMBinding.object(text, public: "tpm-tag-public", private: "tpm-tag-private")
    }

    /// The record's bytes.
    func serialized() -> [UInt8] {
        RecordText.render(
            header: Self.header,
            [
                ("tpm-parent", Hex.encode(tagKey.parentName)),
                ("tpm-tag-public", Hex.encode(tagKey.publicBytes)),
                ("tpm-tag-private", Hex.encode(tagKey.privateBytes)),
            ])
    }
}
