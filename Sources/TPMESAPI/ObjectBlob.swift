// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CTSS2
import SecureRoomBase

/// A TPM object as stored on disk: the marshalled `TPM2B_PUBLIC` and
/// `TPM2B_PRIVATE` returned by `TPM2_Create` (the private part is encrypted
/// and integrity-protected with a key derived from the parent's seed, so it
/// only loads under the same SRK on the same TPM), plus the SRK name seen
/// when it was created.
public struct ObjectBlob: Equatable, Sendable {
    /// `Tss2_MU_TPM2B_PUBLIC_Marshal` output (2-byte size + TPMT_PUBLIC).
    public let publicBytes: [UInt8]
    /// `Tss2_MU_TPM2B_PRIVATE_Marshal` output (2-byte size + wrapped sensitive).
    public let privateBytes: [UInt8]
    /// Name of the SRK at creation time (nameAlg || SHA-256 of its public).
    public let parentName: [UInt8]

    public init(publicBytes: [UInt8], privateBytes: [UInt8], parentName: [UInt8]) {
        self.publicBytes = publicBytes
        self.privateBytes = privateBytes
        self.parentName = parentName
    }

    /// Marshals ESAPI output structures.
    init(public pub: TPM2B_PUBLIC, private priv: TPM2B_PRIVATE, parentName: [UInt8]) throws {
        _ = TSS2Logging.silenced
        var pubBuf = [UInt8](repeating: 0, count: MemoryLayout<TPM2B_PUBLIC>.size)
        var pubLen = 0
        var pubIn = pub
        let rc1 = pubBuf.withUnsafeMutableBufferPointer { buf in
            sr_Tss2_MU_TPM2B_PUBLIC_Marshal(&pubIn, buf.baseAddress, buf.count, &pubLen)
        }
        guard rc1 == 0 else { throw TPMError.tpm(ResponseCode(rc1), operation: "Tss2_MU_TPM2B_PUBLIC_Marshal") }
        var privBuf = [UInt8](repeating: 0, count: MemoryLayout<TPM2B_PRIVATE>.size)
        var privLen = 0
        var privIn = priv
        let rc2 = privBuf.withUnsafeMutableBufferPointer { buf in
            sr_Tss2_MU_TPM2B_PRIVATE_Marshal(&privIn, buf.baseAddress, buf.count, &privLen)
        }
        guard rc2 == 0 else { throw TPMError.tpm(ResponseCode(rc2), operation: "Tss2_MU_TPM2B_PRIVATE_Marshal") }
        self.publicBytes = Array(pubBuf.prefix(pubLen))
        self.privateBytes = Array(privBuf.prefix(privLen))
        self.parentName = parentName
    }

    /// Unmarshals `publicBytes`; the whole buffer must be consumed.
    public func unmarshalPublic() throws -> TPM2B_PUBLIC {
        _ = TSS2Logging.silenced
        var out = TPM2B_PUBLIC()
        var offset = 0
        let rc = publicBytes.withUnsafeBufferPointer { buf in
            sr_Tss2_MU_TPM2B_PUBLIC_Unmarshal(buf.baseAddress, buf.count, &offset, &out)
        }
        guard rc == 0 else { throw TPMError.malformedBlob("public: \(ResponseCode(rc))") }
        guard offset == publicBytes.count else { throw TPMError.malformedBlob("public: trailing bytes") }
        return out
    }

    /// Unmarshals `privateBytes`; the whole buffer must be consumed.
    public func unmarshalPrivate() throws -> TPM2B_PRIVATE {
        _ = TSS2Logging.silenced
        var out = TPM2B_PRIVATE()
        var offset = 0
        let rc = privateBytes.withUnsafeBufferPointer { buf in
            sr_Tss2_MU_TPM2B_PRIVATE_Unmarshal(buf.baseAddress, buf.count, &offset, &out)
        }
        guard rc == 0 else { throw TPMError.malformedBlob("private: \(ResponseCode(rc))") }
        guard offset == privateBytes.count else { throw TPMError.malformedBlob("private: trailing bytes") }
        return out
    }
}

extension TPMConnection {
    /// `Esys_Load` of `blob` under `parent` (password session: the SRK's auth
    /// is empty and inPrivate is already encrypted). Returns the transient
    /// ESYS_TR; the caller must flush it (use `withLoaded`).
    /// Load failures from the TPM map to `.objectRejected`.
    func withLoaded<T>(
        _ blob: ObjectBlob, parent: StorageKey,
        _ body: (ESYS_TR) throws -> T
    ) throws -> T {
        let esys = try context()
        var inPublic = try blob.unmarshalPublic()
        var inPrivate = try blob.unmarshalPrivate()
        var object: ESYS_TR = ESYS_TR_NONE
        let rc = sr_Esys_Load(
            esys, parent.handle, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
            &inPrivate, &inPublic, &object)
        if rc != 0 {
            let error = TPMError.classify(rc, operation: "Esys_Load")
            // A format-one error about the blob (integrity, key, binding, size, value) means
            // another parent: this chip was cleared or replaced, or the blob is not its own.
            // Warnings (out of memory, retry, ...) are the chip's state, not the blob's.
            if case let .tpm(code, _) = error, code.isFormatOne {
                throw TPMError.objectRejected(code)
            }
            try check(rc, "Esys_Load")  // TCTI / lockout / other: always throws
            throw error
        }
        defer { flush(object, "loaded object") }
        return try body(object)
    }
}
