// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CTSS2
import SecureRoomBase

/// A TPM-resident HMAC-SHA256 key for "guess tags": tag = HMAC(key, data)
/// computed inside the TPM, so tags cannot be recomputed offline from a disk
/// image without this TPM.
///
/// Object: `TPM2_ALG_KEYEDHASH`, scheme HMAC/SHA-256, nameAlg SHA-256,
/// attributes `fixedTPM|fixedParent|userWithAuth|sign|sensitiveDataOrigin|noDA`
/// (the TPM generates the key bits), empty authValue.
///
/// Why `noDA`: the authValue is empty and public, so there is nothing to
/// guess and DA protection buys nothing. Without `noDA` the key would (a)
/// stop working while the TPM is in DA lockout (exactly when the tag logic
/// must keep working) and (b) let any caller sending a bogus HMAC increment
/// the shared DA counter. Only records SecureRoom 0.2 wrote have one (version 2
/// bindings, version 1 decoys); 0.3 makes none.
public struct TagKey {
    public let connection: TPMConnection

    public init(connection: TPMConnection) { self.connection = connection }

    /// Maximum input for one `TPM2_HMAC` call (TPM2B_MAX_BUFFER).
    public static let maxData = 1024

    /// HMAC-SHA256(key, data) computed by the TPM.
    ///
    /// ESAPI sequence: SRK → `Esys_Load` → salted HMAC session with
    /// decrypt|encrypt (authorizes the key with its empty authValue; the
    /// data goes in AES-CFB-encrypted, the tag comes back encrypted) →
    /// `Esys_HMAC(key, session, data, SHA256)` → flush session, key, SRK.
    public func hmac(_ blob: ObjectBlob, data: [UInt8], verifyParent: Bool = true) throws -> [UInt8] {
        guard data.count <= Self.maxData else {
            throw TPMError.invalidArgument("data longer than \(Self.maxData) bytes")
        }
        let conn = connection
        let esys = try conn.context()
        var buffer = try TPM2B_MAX_BUFFER(checking: data, what: "data")
        defer { TPM2BBytes.wipe(&buffer) }
        return try conn.withStorageKey { srk in
            if verifyParent && srk.name != blob.parentName { throw TPMError.parentMismatch }
            return try conn.withLoaded(blob, parent: srk) { key in
                try conn.withSession(
                    .saltedHMAC, saltKey: srk,
                    attributes: TPMA_SESSION_DECRYPT | TPMA_SESSION_ENCRYPT
                ) { session in
                    var out: UnsafeMutablePointer<TPM2B_DIGEST>?
                    try conn.check(
                        sr_Esys_HMAC(
                            esys, key, session, ESYS_TR_NONE, ESYS_TR_NONE,
                            &buffer, TPM2_ALG_SHA256, &out),
                        "Esys_HMAC")
                    defer { TPM2BBytes.wipeAndFree(out) }
                    guard let out else {
                        throw TPMError.tpm(ResponseCode(ResponseCode.esysBadSequence), operation: "Esys_HMAC output")
                    }
                    return out.pointee.bytes
                }
            }
        }
    }
}
