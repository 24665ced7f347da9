// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CTSS2
import SecureRoomBase

extension TPMConnection {
    /// `TPM2_Create` of an object from `template` (with `sensitive`: its authValue and,
    /// for sealed data, the data) under the storage key, returned as a blob to store.
    ///
    /// The salted HMAC session (tpmKey = the SRK, AES-128-CFB, `decrypt`) authorizes the
    /// SRK and encrypts `inSensitive`, the first command parameter: neither an authValue
    /// nor sealed data crosses the bus in clear. The session is flushed on every path.
    func create(
        _ template: TPM2B_PUBLIC, sensitive: TPM2B_SENSITIVE_CREATE, under srk: StorageKey,
        what: String
    ) throws -> ObjectBlob {
        let esys = try context()
        var template = template
        var sensitive = sensitive
        defer { TPM2BBytes.wipe(&sensitive) }
        var outsideInfo = TPM2B_DATA()
        var creationPCR = TPML_PCR_SELECTION()
        return try withSession(.saltedHMAC, saltKey: srk, attributes: TPMA_SESSION_DECRYPT) { session in
            var outPrivate: UnsafeMutablePointer<TPM2B_PRIVATE>?
            var outPublic: UnsafeMutablePointer<TPM2B_PUBLIC>?
            try check(
                sr_Esys_Create(
                    esys, srk.handle, session, ESYS_TR_NONE, ESYS_TR_NONE,
                    &sensitive, &template, &outsideInfo, &creationPCR,
                    &outPrivate, &outPublic, nil, nil, nil),
                "Esys_Create(\(what))")
            defer {
                TPM2BBytes.free(outPrivate)
                TPM2BBytes.free(outPublic)
            }
            guard let outPrivate, let outPublic else {
                throw TPMError.tpm(
                    ResponseCode(ResponseCode.esysBadSequence), operation: "Esys_Create(\(what)) outputs")
            }
            return try ObjectBlob(public: outPublic.pointee, private: outPrivate.pointee, parentName: srk.name)
        }
    }
}
