// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CTSS2
import SecureRoomBase

/// The hierarchies a PIN index depends on (docs/TPM-PIN-INDEX.notes.md §10–11):
/// * the owner's authorization, which undefines an index (a forgery's first step) and sets
///   a counter back. Hardened, it is a secret kept off the machine, and the owner's
///   policy allows NV_DefineSpace and nothing else, so PINs are still bound without it;
/// * the platform hierarchy, which can undefine any owner index while it is enabled with
///   an authorization this process knows (swtpm's empty one). Firmware closes it at every
///   boot on a PC; this type can only tell.
public struct OwnerHierarchy {
    /// The connection.
    public let connection: TPMConnection

    /// The owner hierarchy of `connection`'s TPM.
    public init(connection: TPMConnection) { self.connection = connection }

    /// Persists the storage key (the SRK template's primary) at 0x81000001, unless a key
    /// is there already, while the owner authorization is still a factory chip's empty one
    /// (making and persisting a primary authorizes the owner in a password session, which
    /// would carry any other authorization in the clear). Needed before
    /// `restrictToDefiningIndices`: afterwards the owner can no longer create a primary
    /// (notes §10), and every seal and unseal uses the persistent key.
    public func persistStorageKey() throws {
        let conn = connection
        let esys = try conn.context()
        if try conn.hasPersistentStorageKey() { return }
        try conn.withStorageKey { srk in
            var persistent: ESYS_TR = ESYS_TR_NONE
            try conn.check(
                sr_Esys_EvictControl(
                    esys, ESYS_TR_RH_OWNER, srk.handle, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
                    StorageKey.persistentHandle, &persistent),
                "Esys_EvictControl(SRK)")
            conn.closeTR(persistent, "SRK (persistent)")
        }
    }

    /// Sets the owner's policy to PolicyCommandCode(NV_DefineSpace) and its authorization
    /// to `newAuth`, authorized by `currentAuth` (a factory chip's is empty). Afterwards,
    /// without `newAuth`: indices can be defined (`PinCounter.Definer.defineSpacePolicy`),
    /// none undefined, no counter set back, no primary created under the owner.
    public func restrictToDefiningIndices(currentAuth: [UInt8] = [], newAuth: [UInt8]) throws {
        let conn = connection
        let esys = try conn.context()
        guard try conn.hasPersistentStorageKey() else {
            throw TPMError.invalidArgument("persist the storage key first: a hardened owner cannot create one")
        }
        var policy = try TPM2B_DIGEST(checking: PinIndexPolicy.defineSpaceOnly, what: "owner policy")
        var auth = try TPM2B_DIGEST(checking: newAuth, what: "owner auth")
        defer { TPM2BBytes.wipe(&auth) }
        try conn.withOwner(currentAuth) {
            try conn.withStorageKey { srk in
                try conn.withSession(.saltedHMAC, saltKey: srk, attributes: 0) { session in
                    try conn.check(
                        sr_Esys_SetPrimaryPolicy(
                            esys, ESYS_TR_RH_OWNER, session, ESYS_TR_NONE, ESYS_TR_NONE, &policy, TPM2_ALG_SHA256),
                        "Esys_SetPrimaryPolicy(owner)")
                }
                try conn.withSession(.saltedHMAC, saltKey: srk, attributes: TPMA_SESSION_DECRYPT) { session in
                    try conn.check(
                        sr_Esys_HierarchyChangeAuth(esys, ESYS_TR_RH_OWNER, session, ESYS_TR_NONE, ESYS_TR_NONE, &auth),
                        "Esys_HierarchyChangeAuth(owner)")
                }
            }
        }
    }

    /// Whether this process could use the platform hierarchy: it is enabled and its
    /// authorization is empty. Probed by changing that authorization from empty to empty,
    /// which changes nothing where it succeeds; an enabled hierarchy with another
    /// authorization refuses (`TPM_RC_BAD_AUTH`, not counted), a disabled one answers
    /// `TPM_RC_HIERARCHY`.
    public func platformHierarchyIsOpen() throws -> Bool {
        let esys = try connection.context()
        var empty = TPM2B_AUTH()
        let rc = sr_Esys_HierarchyChangeAuth(
            esys, ESYS_TR_RH_PLATFORM, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &empty)
        if rc == 0 { return true }
        let code = ResponseCode(rc)
        if code.isFromTPM && [ResponseCode.rcHierarchy, ResponseCode.rcBadAuth].contains(code.base) { return false }
        try connection.check(rc, "Esys_HierarchyChangeAuth(platform, probe)")
        return false
    }
}
