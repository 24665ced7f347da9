// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CTSS2
import SecureRoomBase

/// The storage parent ("SRK") under which the PIN object and the tag key are
/// created and loaded. It is also the `tpmKey` of every salted session: the
/// session salt is encrypted to this key (ECDH for ECC), so only this TPM can
/// derive the session key that protects parameters.
///
/// `handle` is either
/// * the persistent shared SRK at 0x81000001 (as created by systemd >= 255),
///   obtained with `Esys_TR_FromTPMPublic`; this ESYS_TR is only ESAPI
///   bookkeeping and is released with `Esys_TR_Close`, never flushed; or
/// * a transient primary created with `Esys_CreatePrimary` from the TCG SRK
///   template below; it occupies one of swtpm's 3 transient slots and is
///   flushed with `Esys_FlushContext` when the operation ends.
///
/// Both give the same key (same owner seed + same template = same key), so
/// blobs sealed under one load under the other.
public struct StorageKey {
    /// ESYS_TR of the SRK.
    let handle: ESYS_TR
    /// True if `handle` refers to the persistent 0x81000001 (do not flush).
    public let isPersistent: Bool
    /// TPM name of the SRK (nameAlg || H(public)); recorded in blobs so that
    /// unseal can refuse an unexpected parent before it sends secrets.
    public let name: [UInt8]

    /// TPM2_SRK_HANDLE, the reserved shared SRK location.
    public static let persistentHandle: UInt32 = 0x8100_0001

    /// TCG "Provisioning Guidance" SRK template, ECC NIST P-256 variant
    /// (EK Credential Profile template "L-2" with noDA + userWithAuth, no
    /// adminWithPolicy, empty authPolicy, empty unique). Identical to
    /// systemd's `tpm2_get_srk_template(TPM2_ALG_ECC)` in
    /// src/shared/tpm2-util.c, which is what systemd persists at 0x81000001.
    public static func srkTemplate() -> TPM2B_PUBLIC {
        var pub = TPM2B_PUBLIC()
        pub.publicArea.type = TPM2_ALG_ECC
        pub.publicArea.nameAlg = TPM2_ALG_SHA256
        pub.publicArea.objectAttributes =
            TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT | TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT
            | TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA
        pub.publicArea.parameters.eccDetail.symmetric.algorithm = TPM2_ALG_AES
        pub.publicArea.parameters.eccDetail.symmetric.keyBits.aes = 128
        pub.publicArea.parameters.eccDetail.symmetric.mode.aes = TPM2_ALG_CFB
        pub.publicArea.parameters.eccDetail.scheme.scheme = TPM2_ALG_NULL
        pub.publicArea.parameters.eccDetail.curveID = TPM2_ECC_NIST_P256
        pub.publicArea.parameters.eccDetail.kdf.scheme = TPM2_ALG_NULL
        // authPolicy and unique stay empty (size 0), as in systemd.
        return pub
    }
}

extension TPMConnection {
    /// Runs `body` with the SRK: the persistent one if present, otherwise a
    /// transient primary from `StorageKey.srkTemplate()`. The handle is
    /// released on every path (flush for transient, TR_Close for persistent).
    func withStorageKey<T>(_ body: (StorageKey) throws -> T) throws -> T {
        let esys = try context()
        let key = try acquireStorageKey(esys)
        defer {
            if key.isPersistent {
                closeTR(key.handle, "SRK (persistent)")
            } else {
                flush(key.handle, "SRK (transient primary)")
            }
        }
        return try body(key)
    }

    /// Returns the name of the SRK this connection would use.
    public func storageKeyName() throws -> [UInt8] {
        try withStorageKey { $0.name }
    }

    /// Returns whether the persistent SRK 0x81000001 exists.
    public func hasPersistentStorageKey() throws -> Bool {
        try withStorageKey { $0.isPersistent }
    }

    private func acquireStorageKey(_ esys: OpaquePointer) throws -> StorageKey {
        // 1. Persistent SRK? Esys_TR_FromTPMPublic does a TPM2_ReadPublic and
        //    builds an ESYS_TR with the public area (needed as tpmKey for
        //    salting). Note: ReadPublic is not authenticated; the name check
        //    against the name recorded at seal time is what detects a
        //    substituted key.
        var persistent: ESYS_TR = ESYS_TR_NONE
        let rc = sr_Esys_TR_FromTPMPublic(
            esys, StorageKey.persistentHandle,
            ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &persistent)
        if rc == 0 {
            do {
                let name = try trName(esys, persistent)
                return StorageKey(handle: persistent, isPersistent: true, name: name)
            } catch {
                closeTR(persistent, "SRK (persistent)")
                throw error
            }
        }
        let code = ResponseCode(rc)
        // TPM_RC_HANDLE (0x18b: handle 1) means "nothing persisted there".
        guard code.isFromTPM, code.base == ResponseCode.rcHandle else {
            try check(rc, "Esys_TR_FromTPMPublic(0x81000001)")
            throw TPMError.tpm(code, operation: "Esys_TR_FromTPMPublic(0x81000001)")
        }

        // 2. Transient primary under the owner hierarchy. Authorized with
        //    the password session (empty owner auth); nothing secret is sent.
        var inPublic = StorageKey.srkTemplate()
        var inSensitive = TPM2B_SENSITIVE_CREATE()
        var outsideInfo = TPM2B_DATA()
        var creationPCR = TPML_PCR_SELECTION()
        var primary: ESYS_TR = ESYS_TR_NONE
        try check(
            sr_Esys_CreatePrimary(
                esys, ESYS_TR_RH_OWNER,
                ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
                &inSensitive, &inPublic, &outsideInfo, &creationPCR,
                &primary, nil, nil, nil, nil),
            "Esys_CreatePrimary(SRK)")
        do {
            let name = try trName(esys, primary)
            return StorageKey(handle: primary, isPersistent: false, name: name)
        } catch {
            flush(primary, "SRK (transient primary)")
            throw error
        }
    }

    func trName(_ esys: OpaquePointer, _ handle: ESYS_TR) throws -> [UInt8] {
        var namePtr: UnsafeMutablePointer<TPM2B_NAME>?
        try check(sr_Esys_TR_GetName(esys, handle, &namePtr), "Esys_TR_GetName")
        defer { TPM2BBytes.free(namePtr) }
        guard let namePtr else {
            throw TPMError.tpm(ResponseCode(ResponseCode.esysBadSequence), operation: "Esys_TR_GetName")
        }
        return namePtr.pointee.bytes
    }
}
