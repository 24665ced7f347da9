// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CTSS2
import SecureRoomBase

/// Administration of the TPM's dictionary-attack (DA) protection through the
/// lockout hierarchy (`ESYS_TR_RH_LOCKOUT`, TPM handle 0x4000000A).
///
/// While the lockout authValue is empty (the factory state on most PCs and
/// on swtpm) anybody who can talk to the TPM can reset the DA counter with
/// `TPM2_DictionaryAttackLockReset`, which makes the PIN's retry limit
/// meaningless against root. `harden` closes that door by setting a random
/// lockout authValue that is never stored.
public struct LockoutHierarchy {
    public let connection: TPMConnection

    public init(connection: TPMConnection) { self.connection = connection }

    /// Sets DA parameters and then the lockout authValue `newAuth`.
    ///
    /// Refuses (`.lockoutAuthAlreadySet`) when TPMA_PERMANENT.lockoutAuthSet
    /// is already true: we cannot authorize (and must not burn a lockout
    /// auth failure, which locks the lockout hierarchy for
    /// `lockoutRecovery` seconds).
    ///
    /// ESAPI sequence:
    /// 1. `Esys_GetCapability` (DAStatus) → refuse if lockoutAuthSet.
    /// 2. SRK (salt key) → salted HMAC session, decrypt attribute.
    /// 3. `Esys_TR_SetAuth(RH_LOCKOUT, empty)`.
    /// 4. `Esys_DictionaryAttackParameters(RH_LOCKOUT, session, maxTries,
    ///    recoverySeconds, lockoutRecovery)`.
    /// 5. `Esys_HierarchyChangeAuth(RH_LOCKOUT, session, newAuth)`: newAuth is
    ///    the first parameter, so it is AES-CFB encrypted by the session.
    /// 6. Flush session and SRK.
    ///
    /// - Parameters:
    ///   - maxTries: TPM2_PT_MAX_AUTH_FAIL (failures before lockout).
    ///   - recoverySeconds: TPM2_PT_LOCKOUT_INTERVAL (seconds per
    ///     forgiven failure; 0 disables DA protection entirely).
    ///   - lockoutRecovery: seconds before lockoutAuth may be retried after
    ///     a failure (0: only after a TPM reset).
    ///   - newAuth: the lockout authValue (`TPMRecoverySecret`), without a
    ///     trailing zero byte.
    public func harden(
        maxTries: UInt32, recoverySeconds: UInt32, lockoutRecovery: UInt32, newAuth newAuthBytes: [UInt8]
    )
        throws
    {
        guard maxTries > 0 else { throw TPMError.invalidArgument("maxTries must be > 0") }
        let status = try DAStatus.read(connection)
        if status.lockoutAuthSet { throw TPMError.lockoutAuthAlreadySet }
        var newAuth = try TPM2B_DIGEST(checking: newAuthBytes, what: "lockout auth")
        defer { TPM2BBytes.wipe(&newAuth) }

        let conn = connection
        let esys = try conn.context()
        try conn.withStorageKey { srk in
            try conn.withSession(.saltedHMAC, saltKey: srk, attributes: TPMA_SESSION_DECRYPT) { session in
                try conn.check(sr_Esys_TR_SetAuth(esys, ESYS_TR_RH_LOCKOUT, nil), "Esys_TR_SetAuth(lockout)")
                try conn.check(
                    sr_Esys_DictionaryAttackParameters(
                        esys, ESYS_TR_RH_LOCKOUT, session,
                        ESYS_TR_NONE, ESYS_TR_NONE,
                        maxTries, recoverySeconds, lockoutRecovery),
                    "Esys_DictionaryAttackParameters")
                try conn.check(
                    sr_Esys_HierarchyChangeAuth(
                        esys, ESYS_TR_RH_LOCKOUT, session,
                        ESYS_TR_NONE, ESYS_TR_NONE, &newAuth),
                    "Esys_HierarchyChangeAuth(lockout)")
            }
        }
        // ESAPI updates its cached RH_LOCKOUT auth after a successful
        // HierarchyChangeAuth; clear it so it does not linger in memory.
        _ = sr_Esys_TR_SetAuth(esys, ESYS_TR_RH_LOCKOUT, nil)
    }
}
