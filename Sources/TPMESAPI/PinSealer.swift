// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CTSS2
import SecureRoomBase

/// Seals a bound PIN's 32-byte secret to the TPM and unseals it: behind the PIN's own
/// counter (version 3, `seal(_:behind:pcrs:)`), or, for records SecureRoom 0.2 wrote and
/// 0.3 only reads and migrates, behind a 32-byte authValue derived from the PIN
/// (version 2, `unseal(_:authValue:)`).
///
/// A version 2 object is a `TPM2_ALG_KEYEDHASH` data object (scheme NULL),
/// nameAlg SHA-256, attributes `fixedTPM|fixedParent` only:
/// * no `userWithAuth`: the authValue can only be proven through the
///   policy (`PolicyAuthValue`), i.e. inside an HMAC'd policy session; a
///   plaintext password session is rejected;
/// * no `noDA`: every wrong authValue increments the TPM's DA counter and
///   the object is unusable while the TPM is in lockout;
/// * no `sensitiveDataOrigin`: the caller supplies the data.
public struct PinSealer {
    public let connection: TPMConnection

    public init(connection: TPMConnection) { self.connection = connection }

    /// Longest authValue (the TPM ignores trailing zero bytes of one), and the secret's length.
    public static let authLength = 32
    public static let secretLength = 32

    /// The public template for the sealed object.
    static func sealTemplate(policy: [UInt8]) throws -> TPM2B_PUBLIC {
        var pub = TPM2B_PUBLIC()
        pub.publicArea.type = TPM2_ALG_KEYEDHASH
        pub.publicArea.nameAlg = TPM2_ALG_SHA256
        pub.publicArea.objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT
        pub.publicArea.authPolicy = try TPM2B_DIGEST(checking: policy, what: "authPolicy")
        pub.publicArea.parameters.keyedHashDetail.scheme.scheme = TPM2_ALG_NULL
        return pub
    }

    /// Unseals the secret with `authValue`.
    ///
    /// ESAPI sequence:
    /// 1. Unmarshal blob (before any TPM traffic).
    /// 2. SRK as in `seal`; if `verifyParent`, its name must equal
    ///    `blob.parentName` (refuses a substituted SRK before anything
    ///    secret is sent).
    /// 3. `Esys_Load(SRK, password session)` → transient object.
    /// 4. `Esys_TR_SetAuth(object, authValue)`: ESAPI uses it for the HMAC and
    ///    for the parameter-encryption key; the value itself is never sent.
    /// 5. Salted policy session (tpmKey = SRK, AES-128-CFB, encrypt) →
    ///    `Esys_PolicyAuthValue`.
    /// 6. `Esys_Unseal(object, policy session)`: outData comes back
    ///    AES-CFB-encrypted under a key derived from sessionKey||authValue.
    /// 7. Flush policy session, object, SRK (every path).
    ///
    /// Errors: `.wrongAuth` (TPM_RC_AUTH_FAIL, counted), `.lockout`,
    /// `.objectRejected` (blob from another/cleared TPM), `.parentMismatch`,
    /// `.tpmUnreachable`.
    public func unseal(_ blob: ObjectBlob, authValue: [UInt8], verifyParent: Bool = true) throws -> [UInt8] {
        guard (1...Self.authLength).contains(authValue.count) else {
            throw TPMError.invalidArgument("authValue must be 1 to \(Self.authLength) bytes")
        }
        let conn = connection
        let esys = try conn.context()
        // Validate the blob before touching the TPM.
        _ = try blob.unmarshalPublic()
        _ = try blob.unmarshalPrivate()
        var auth = try TPM2B_DIGEST(checking: authValue, what: "authValue")
        defer { TPM2BBytes.wipe(&auth) }
        return try conn.withStorageKey { srk in
            if verifyParent && srk.name != blob.parentName { throw TPMError.parentMismatch }
            return try conn.withLoaded(blob, parent: srk) { object in
                try conn.check(sr_Esys_TR_SetAuth(esys, object, &auth), "Esys_TR_SetAuth")
                return try conn.withSession(.saltedPolicy, saltKey: srk, attributes: TPMA_SESSION_ENCRYPT) { policy in
                    try conn.check(
                        sr_Esys_PolicyAuthValue(esys, policy, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE),
                        "Esys_PolicyAuthValue")
                    var outData: UnsafeMutablePointer<TPM2B_SENSITIVE_DATA>?
                    try conn.check(
                        sr_Esys_Unseal(esys, object, policy, ESYS_TR_NONE, ESYS_TR_NONE, &outData),
                        "Esys_Unseal")
                    defer { TPM2BBytes.wipeAndFree(outData) }
                    guard let outData else {
                        throw TPMError.tpm(ResponseCode(ResponseCode.esysBadSequence), operation: "Esys_Unseal output")
                    }
                    return outData.pointee.bytes
                }
            }
        }
    }

    /// Seals `secret` so that only a policy session in which the PIN index `counter`
    /// accepted its authValue (`PinCounter.prove`) unseals it: the object's authPolicy is
    /// `PolicySecret(counter)` (`PinIndexPolicy.secret` of its Name), it has no authValue of its
    /// own, no `userWithAuth`, and `noDA` (nothing about it can be guessed; the guesses
    /// are counted on the index). Attributes `fixedTPM|fixedParent|noDA`. With `pcrs`, the
    /// policy is PolicyPCR, then PolicySecret(counter).
    public func seal(_ secret: [UInt8], behind counter: PinCounter, pcrs: PCRPolicy? = nil) throws -> ObjectBlob {
        guard secret.count == Self.secretLength else {
            throw TPMError.invalidArgument("secret must be \(Self.secretLength) bytes")
        }
        let conn = connection
        return try conn.withStorageKey { srk in
            var template = try Self.sealTemplate(
                policy: PinIndexPolicy.secret(try counter.name(), after: pcrs?.policyDigest() ?? PinIndexPolicy.zero))
            template.publicArea.objectAttributes |= TPMA_OBJECT_NODA
            var sensitive = TPM2B_SENSITIVE_CREATE()
            defer { TPM2BBytes.wipe(&sensitive) }
            try TPM2BBytes.fill(&sensitive.sensitive.data, size: \.size, buffer: \.buffer, from: secret, what: "secret")
            return try conn.create(template, sensitive: sensitive, under: srk, what: "sealed object behind a PIN index")
        }
    }

    /// Unseals a secret sealed `behind` the PIN index `counter` with `authValue`: a salted
    /// policy session, `PolicySecret` with the index (which counts a wrong authValue and
    /// clears the count at a right one), then `TPM2_Unseal` with the response encrypted.
    /// Throws `.wrongAuth` for a wrong authValue (counted on the index, not on the chip's
    /// dictionary-attack counter) and `.pinLimitReached` once the index refuses; with
    /// `indexName`, `.parentMismatch` for an index of another Name, and with `pcrs`,
    /// `.pcrMismatch` for another boot, both before the authValue is used.
    public func unseal(
        _ blob: ObjectBlob, behind counter: PinCounter, indexName: [UInt8]? = nil, pcrs: PCRPolicy? = nil,
        authValue: [UInt8]
    ) throws -> [UInt8] {
        let conn = connection
        let esys = try conn.context()
        _ = try blob.unmarshalPublic()
        _ = try blob.unmarshalPrivate()
        return try conn.withStorageKey { srk in
            if srk.name != blob.parentName { throw TPMError.parentMismatch }
            return try conn.withLoaded(blob, parent: srk) { object in
                try conn.withSession(.saltedPolicy, saltKey: srk, attributes: TPMA_SESSION_ENCRYPT) { policy in
                    try pcrs?.apply(in: policy, conn)
                    try counter.prove(authValue, in: policy, salt: srk, expectedName: indexName)
                    var outData: UnsafeMutablePointer<TPM2B_SENSITIVE_DATA>?
                    try conn.check(
                        sr_Esys_Unseal(esys, object, policy, ESYS_TR_NONE, ESYS_TR_NONE, &outData), "Esys_Unseal")
                    defer { TPM2BBytes.wipeAndFree(outData) }
                    guard let outData else {
                        throw TPMError.tpm(ResponseCode(ResponseCode.esysBadSequence), operation: "Esys_Unseal output")
                    }
                    return outData.pointee.bytes
                }
            }
        }
    }
}
