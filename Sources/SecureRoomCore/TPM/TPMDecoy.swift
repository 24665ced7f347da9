// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// The decoys' TPM objects (`users/.decoy.tpm`, docs/FORMAT.md §1, §2.1): once any PIN is
/// bound to the TPM, a check of a name without a PIN (`nopin=fail`) does the chip work a
/// bound PIN's wrong guess does, so that neither its answers nor their time tell who has a
/// PIN.
public enum TPMDecoy: Equatable, Sendable {
    /// Version 1, made with a version 2 binding: an HMAC key of the TPM's. A check computes
    /// the guess's tag and, in place of the unseal, a second HMAC, which the chip does not
    /// count. Replaced by `.pinIndex` when a PIN is next bound.
    case tagKey(ObjectBlob)
    /// Version 2: a PIN index of nobody's, under a random authorization value nobody
    /// knows and with the largest limit, and a secret sealed behind it. A check does
    /// exactly a bound PIN's chip work (the index counts it, forever short of its limit;
    /// nothing touches the chip's dictionary-attack counter).
    case pinIndex(PinIndexBinding)

    /// The record's first line for each version.
    static let headers = ["SECUREROOM-DECOY-TPM/1", "SECUREROOM-DECOY-TPM/2"]
    /// The file in `users/`.
    static let fileName = ".decoy.tpm"
    /// The decoy index's limit: wrong guesses it takes before refusing (never, in practice).
    static let limit = UInt32.max

    /// Parses the record.
    init(parsing bytes: [UInt8], path: String) throws {
        if bytes.starts(with: Array((Self.headers[1] + "\n").utf8)) {
            let text = try RecordText(
                parsing: bytes, header: Self.headers[1], keys: Set(PinIndexBinding.keys), path: path)
            self = .pinIndex(try PinIndexBinding(text))
        } else {
            let text = try RecordText(
                parsing: bytes, header: Self.headers[0],
                keys: ["tpm-parent", "tpm-tag-public", "tpm-tag-private"], path: path)
            self = .tagKey(try ObjectBlob(text, public: "tpm-tag-public", private: "tpm-tag-private"))
        }
    }

    /// The record's bytes.
    func serialized() -> [UInt8] {
        switch self {
        case .tagKey(let key):
            return RecordText.render(
                header: Self.headers[0],
                [
                    ("tpm-parent", Hex.encode(key.parentName)),
                    ("tpm-tag-public", Hex.encode(key.publicBytes)),
                    ("tpm-tag-private", Hex.encode(key.privateBytes)),
                ])
        case .pinIndex(let binding):
            return RecordText.render(header: Self.headers[1], binding.fields)
        }
    }
}
