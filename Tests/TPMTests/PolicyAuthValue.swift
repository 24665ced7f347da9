// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CTSS2

@testable import TPMESAPI

/// The authPolicy of the sealed PIN object: a policy consisting of the single
/// assertion `TPM2_PolicyAuthValue`. Using it means the object's authValue is
/// proven with an HMAC inside a (salted, encrypting) policy session instead of
/// a plaintext password session.
public enum PolicyAuthValue {
    /// SHA-256 policy digest of `PolicyAuthValue`:
    /// `SHA256(0x00 * 32 || TPM_CC_PolicyAuthValue (0x0000016B))`.
    public static let sha256Digest: [UInt8] = [
        0x8f, 0xcd, 0x21, 0x69, 0xab, 0x92, 0x69, 0x4e, 0x0c, 0x63, 0x3f, 0x1a, 0xb7, 0x72, 0x84, 0x2b,
        0x82, 0x41, 0xbb, 0xc2, 0x02, 0x88, 0x98, 0x1f, 0xc7, 0xac, 0x1e, 0xdd, 0xc1, 0xfd, 0xdb, 0x0e,
    ]

    /// Computes the digest on the TPM with a trial session:
    /// `Esys_StartAuthSession(TPM2_SE_TRIAL)` → `Esys_PolicyAuthValue` →
    /// `Esys_PolicyGetDigest` → flush.
    public static func computeWithTrialSession(_ connection: TPMConnection) throws -> [UInt8] {
        let esys = try connection.context()
        return try connection.withSession(.trial, saltKey: nil, attributes: 0) { trial in
            try connection.check(
                sr_Esys_PolicyAuthValue(esys, trial, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE),
                "Esys_PolicyAuthValue(trial)")
            var digest: UnsafeMutablePointer<TPM2B_DIGEST>?
            try connection.check(
                sr_Esys_PolicyGetDigest(esys, trial, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &digest),
                "Esys_PolicyGetDigest")
            defer { TPM2BBytes.free(digest) }
            return digest?.pointee.bytes ?? []
        }
    }

    /// Trial digest, verified against the hard-coded constant.
    static func verifiedDigest(_ connection: TPMConnection) throws -> [UInt8] {
        let digest = try computeWithTrialSession(connection)
        guard digest == sha256Digest else { throw TPMError.policyDigestMismatch(got: digest) }
        return digest
    }
}
