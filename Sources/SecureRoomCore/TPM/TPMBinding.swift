// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// What a TPM-bound credential record holds of the TPM (docs/FORMAT.md §2.1, §3).
public enum TPMBinding: Equatable, Sendable {
    /// Version 2: counted on the chip's dictionary-attack counter; bound again to its own
    /// counter at the PIN's next success.
    case authValue(AuthValueBinding)
    /// Version 3: the PIN's own counter in the chip.
    case pinIndex(PinIndexBinding)

    /// The sealed secret, whose parent names the storage key the binding was made under.
    public var sealed: ObjectBlob {
        switch self {
        case .authValue(let binding): return binding.sealed
        case .pinIndex(let binding): return binding.sealed
        }
    }

    /// The record lines, in FORMAT.md's order.
    var fields: [(String, String)] {
        switch self {
        case .authValue(let binding): return binding.fields
        case .pinIndex(let binding): return binding.fields
        }
    }
}

extension ObjectBlob {
    /// The object stored in a record's `public` and `private` lines, under the storage key
    /// named by its `tpm-parent` line; it must unmarshal whole.
    init(_ text: RecordText, public publicKey: String, private privateKey: String) throws {
        func bytes(_ key: String) throws -> [UInt8] {
            let value = try text.required(key)
            guard value.count % 2 == 0, value.count <= 2 * 1_024, let bytes = Hex.decode(value, count: value.count / 2)
            else {
                throw SecureRoomError.corruptRecord(path: text.path, reason: "malformed \(key)")
            }
            return bytes
        }
        self.init(
            publicBytes: try bytes(publicKey), privateBytes: try bytes(privateKey),
            parentName: try bytes("tpm-parent"))
        do {
            _ = try unmarshalPublic()
            _ = try unmarshalPrivate()
        } catch {
            throw SecureRoomError.corruptRecord(path: text.path, reason: "a TPM object does not unmarshal")
        }
    }
}
