// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CTSS2

@testable import SecureRoomCore
@testable import TPMESAPI

// What SecureRoom 0.2 wrote and 0.3 only reads (version 2 bound records and version 1
// decoys, docs/FORMAT.md §2.1): the tests make such records to check that they still
// verify and migrate. The product has no writer for them any more.

extension PinSealer {
    /// Seals `secret` under `authValue`.
    ///
    /// ESAPI sequence:
    /// 1. SRK: `Esys_TR_FromTPMPublic(0x81000001)` or `Esys_CreatePrimary`.
    /// 2. Trial session → `Esys_PolicyAuthValue` → `Esys_PolicyGetDigest`
    ///    → flush; digest must equal `PolicyAuthValue.sha256Digest`.
    /// 3. Salted HMAC session (tpmKey = SRK, AES-128-CFB, decrypt): authorizes
    ///    the SRK for `Esys_Create` and encrypts `inSensitive`, so neither
    ///    authValue nor secret crosses the bus in clear.
    /// 4. `Esys_Create(SRK, session, inSensitive{userAuth, data}, template)`.
    /// 5. Marshal outPublic/outPrivate; flush session and SRK.
    func seal(authValue: [UInt8], secret: [UInt8]) throws -> ObjectBlob {
        guard (1...Self.authLength).contains(authValue.count) else {
            throw TPMError.invalidArgument("authValue must be 1 to \(Self.authLength) bytes")
        }
        guard secret.count == Self.secretLength else {
            throw TPMError.invalidArgument("secret must be \(Self.secretLength) bytes")
        }
        let conn = connection
        return try conn.withStorageKey { srk in
            let policy = try PolicyAuthValue.verifiedDigest(conn)
            let template = try Self.sealTemplate(policy: policy)
            var sensitive = TPM2B_SENSITIVE_CREATE()
            defer { TPM2BBytes.wipe(&sensitive) }
            try TPM2BBytes.fill(
                &sensitive.sensitive.userAuth, size: \.size, buffer: \.buffer,
                from: authValue, what: "authValue")
            try TPM2BBytes.fill(
                &sensitive.sensitive.data, size: \.size, buffer: \.buffer,
                from: secret, what: "secret")
            return try conn.create(template, sensitive: sensitive, under: srk, what: "sealed PIN object")
        }
    }
}

extension TagKey {
    /// The public template of a tag key (see `TagKey`).
    static func template() -> TPM2B_PUBLIC {
        var pub = TPM2B_PUBLIC()
        pub.publicArea.type = TPM2_ALG_KEYEDHASH
        pub.publicArea.nameAlg = TPM2_ALG_SHA256
        pub.publicArea.objectAttributes =
            TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_SIGN_ENCRYPT
            | TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_NODA
        pub.publicArea.parameters.keyedHashDetail.scheme.scheme = TPM2_ALG_HMAC
        pub.publicArea.parameters.keyedHashDetail.scheme.details.hmac.hashAlg = TPM2_ALG_SHA256
        return pub
    }

    /// Creates a new HMAC key under the SRK.
    ///
    /// ESAPI sequence: SRK → salted HMAC session (authorizes SRK; decrypt
    /// attribute is harmless here, inSensitive is empty) →
    /// `Esys_Create(SRK, session, empty inSensitive, template)` → marshal →
    /// flush session, SRK.
    func create() throws -> ObjectBlob {
        let conn = connection
        return try conn.withStorageKey { srk in
            try conn.create(Self.template(), sensitive: TPM2B_SENSITIVE_CREATE(), under: srk, what: "HMAC key")
        }
    }
}
