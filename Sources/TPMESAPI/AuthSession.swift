// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CTSS2
import SecureRoomBase

/// A TPM authorization session (`Esys_StartAuthSession`), always flushed
/// when the closure that uses it returns or throws.
///
/// Kinds used here:
/// * `.saltedHMAC`: HMAC session, unbound, salted with the SRK (`tpmKey`),
///   AES-128-CFB parameter encryption, SHA-256. Authorizes the SRK (Create),
///   the tag key (HMAC) and the lockout hierarchy, and encrypts the first
///   TPM2B command parameter (`decrypt`) and/or response parameter
///   (`encrypt`). Because the salt is encrypted to the SRK, a bus observer
///   cannot derive the session key even though the entities' authValues are
///   empty.
/// * `.saltedPolicy`: policy session, salted with the SRK, AES-128-CFB.
///   Used with PolicySecret (a PIN's counter) or PolicyAuthValue (version 2) to
///   authorize the sealed PIN object, with `encrypt` so the unsealed secret comes
///   back encrypted, and for the PIN counter's writes.
/// * `.policy`: policy session, neither salted nor encrypted: for what anyone
///   may do and nothing secret crosses (reading a PIN's counter).
/// * `.trial`: trial policy session (no salt, no encryption) only to compute
///   a policy digest.
enum AuthSession {
    enum Kind {
        case saltedHMAC
        case saltedPolicy
        case policy
        case trial
    }

    /// AES-128-CFB, the parameter-encryption cipher for salted sessions.
    static func aes128CFB() -> TPMT_SYM_DEF {
        var sym = TPMT_SYM_DEF()
        sym.algorithm = TPM2_ALG_AES
        sym.keyBits.aes = 128
        sym.mode.aes = TPM2_ALG_CFB
        return sym
    }
}

extension TPMConnection {
    /// Starts a session of `kind`, sets `attributes` (e.g. decrypt|encrypt|
    /// continueSession), runs `body(sessionHandle)`, and flushes the session
    /// on every path.
    ///
    /// `continueSession` is always set so the TPM never auto-flushes the
    /// session and exactly one explicit `Esys_FlushContext` is correct on both
    /// success and failure paths.
    func withSession<T>(
        _ kind: AuthSession.Kind,
        saltKey: StorageKey?,
        attributes: TPMA_SESSION,
        _ body: (ESYS_TR) throws -> T
    ) throws -> T {
        let esys = try context()
        var symmetric: TPMT_SYM_DEF
        let sessionType: TPM2_SE
        let tpmKey: ESYS_TR
        switch kind {
        case .saltedHMAC:
            symmetric = AuthSession.aes128CFB()
            sessionType = TPM2_SE_HMAC
            guard let saltKey else { throw TPMError.invalidArgument("salted session needs a tpmKey") }
            tpmKey = saltKey.handle
        case .saltedPolicy:
            symmetric = AuthSession.aes128CFB()
            sessionType = TPM2_SE_POLICY
            guard let saltKey else { throw TPMError.invalidArgument("salted session needs a tpmKey") }
            tpmKey = saltKey.handle
        case .policy, .trial:
            symmetric = TPMT_SYM_DEF()
            symmetric.algorithm = TPM2_ALG_NULL
            sessionType = kind == .policy ? TPM2_SE_POLICY : TPM2_SE_TRIAL
            tpmKey = ESYS_TR_NONE
        }
        var session: ESYS_TR = ESYS_TR_NONE
        // nonceCaller = nil: ESAPI generates a nonce of the hash size.
        try check(
            sr_Esys_StartAuthSession(
                esys, tpmKey, ESYS_TR_NONE,
                ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
                nil, sessionType, &symmetric, TPM2_ALG_SHA256,
                &session),
            "Esys_StartAuthSession(\(kind))")
        defer { flush(session, "session \(kind)") }
        let all: TPMA_SESSION =
            TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_DECRYPT | TPMA_SESSION_ENCRYPT | TPMA_SESSION_AUDIT
        try check(
            sr_Esys_TRSess_SetAttributes(
                esys, session,
                attributes | TPMA_SESSION_CONTINUESESSION, all),
            "Esys_TRSess_SetAttributes")
        return try body(session)
    }
}
