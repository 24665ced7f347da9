// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CTSS2
import SecureRoomBase

/// A failure counter for one PIN inside the TPM: an NV index of type `TPM_NT_PIN_FAIL`
/// (TPM 2.0 Part 1 §37, Part 2 TPMA_NV). Its data is `pinCount || pinLimit` (two big-endian
/// 32-bit numbers); an authorization with its authValue that fails raises `pinCount`, one
/// that succeeds sets it to 0, and once `pinCount >= pinLimit` every authorization with
/// the authValue is refused (`TPM_RC_AUTH_UNAVAILABLE`), the right one too.
///
/// Attributes (measured on swtpm: docs/TPM-PIN-INDEX.notes.md §1, §9):
/// * `TPM_NT_PIN_FAIL`, `NO_DA`: a wrong authValue counts here, never on the chip's
///   dictionary-attack counter, which every user and disk encryption share (the TPM
///   refuses a PIN_FAIL index without `NO_DA`);
/// * `POLICYWRITE`, `POLICYREAD`: the counter is written and read only through the
///   index's policy (`PinIndexPolicy`): written once by anyone while unwritten, then only
///   with the owner authorization; read by anyone;
/// * no `AUTHREAD`/`AUTHWRITE`, no PolicyAuthValue in the policy: the authValue only
///   authorizes PolicySecret(index), where it is counted;
/// * not `ORDERLY` or `CLEAR_STCLEAR`: either loses the written state at a restart.
///
/// Whoever can undefine the index can define one with the same public area (and so the
/// same Name, the one a sealed object's PolicySecret names) under an authValue of their
/// choice: the owner authorization, and an open platform hierarchy (notes §5, §11). Once the
/// owner authorization is offline and the owner's policy allows NV_DefineSpace alone
/// (`OwnerHierarchy`), indices are still defined, by `Definer.defineSpacePolicy`, but only
/// the holder of the owner secret, or an open platform hierarchy, removes one.
public struct PinCounter {
    /// The connection.
    public let connection: TPMConnection
    /// The index's TPM handle (`0x01xxxxxx`).
    public let index: TPM2_HANDLE

    /// How an index is defined.
    public enum Definer {
        /// With the owner authorization (a factory chip's is empty).
        case ownerAuth([UInt8])
        /// Through the owner's policy of a hardened chip, PolicyCommandCode(NV_DefineSpace):
        /// no secret needed (`OwnerHierarchy.restrictToDefiningIndices`).
        case defineSpacePolicy
    }

    /// A counter at `index`.
    public init(connection: TPMConnection, index: TPM2_HANDLE) {
        self.connection = connection
        self.index = index
    }

    /// The data size of a PIN index: pinCount and pinLimit.
    static let dataSize: UInt16 = 8

    /// The public area of the index (its Name is the hash of this, once written).
    func publicInfo() throws -> TPM2B_NV_PUBLIC {
        var info = TPM2B_NV_PUBLIC()
        info.nvPublic.nvIndex = index
        info.nvPublic.nameAlg = TPM2_ALG_SHA256
        info.nvPublic.attributes =
            (TPMA_NV(TPM2_NT_PIN_FAIL) << TPMA_NV_TPM2_NT_SHIFT) | TPMA_NV_NO_DA | TPMA_NV_POLICYWRITE
            | TPMA_NV_POLICYREAD
        info.nvPublic.authPolicy = try TPM2B_DIGEST(
            checking: PinIndexPolicy.authPolicy, what: "PIN index policy")
        info.nvPublic.dataSize = Self.dataSize
        return info
    }

    /// Defines the index with `authValue` (derived from the PIN), authorized by `definer`,
    /// then writes `pinCount` 0 and `pinLimit` = `limit` through the policy's first-write
    /// branch and reads them back: anyone may make that first write, so a counter that does
    /// not read `0, limit` is not trusted (`pinIndexTampered`). A handle already defined
    /// fails here (`TPM_RC_NV_DEFINED`): the define succeeding is what makes it ours. The
    /// authValue is the command's first parameter, encrypted by a salted session.
    public func define(authValue: [UInt8], limit: UInt32, by definer: Definer) throws {
        let conn = connection
        let esys = try conn.context()
        var auth = try TPM2B_DIGEST(checking: authValue, what: "PIN index authValue")
        defer { TPM2BBytes.wipe(&auth) }
        var info = try publicInfo()
        try conn.withStorageKey { srk in
            // `authorizing` proves the owner's authorization or policy; `encrypting`, a
            // salted session used for nothing else, encrypts the authValue. A session that
            // authorizes the owner would key the encryption with the owner's authValue too,
            // which this process does not know once the chip is hardened.
            func defineSpace(_ authorizing: ESYS_TR, _ encrypting: ESYS_TR) throws {
                var handle: ESYS_TR = ESYS_TR_NONE
                try conn.check(
                    sr_Esys_NV_DefineSpace(
                        esys, ESYS_TR_RH_OWNER, authorizing, encrypting, ESYS_TR_NONE, &auth, &info, &handle),
                    "Esys_NV_DefineSpace(PIN index)")
                conn.wipeAuth(of: handle)
                conn.closeTR(handle, "PIN index")
            }
            try conn.withSession(.saltedHMAC, saltKey: srk, attributes: TPMA_SESSION_DECRYPT) { encrypting in
                switch definer {
                case .ownerAuth(let ownerAuth):
                    try conn.withOwner(ownerAuth) {
                        try conn.withSession(.saltedHMAC, saltKey: srk, attributes: 0) {
                            try defineSpace($0, encrypting)
                        }
                    }
                case .defineSpacePolicy:
                    try conn.withSession(.saltedPolicy, saltKey: srk, attributes: 0) { policy in
                        try conn.check(
                            sr_Esys_PolicyCommandCode(
                                esys, policy, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, TPM2_CC_NV_DefineSpace),
                            "Esys_PolicyCommandCode(NV_DefineSpace)")
                        try defineSpace(policy, encrypting)
                    }
                }
            }
        }
        do {
            try write(count: 0, limit: limit, through: .firstWrite)
            let written = try read()
            guard written == (0, limit) else {
                throw TPMError.pinIndexTampered(count: written.count, limit: written.limit)
            }
        } catch {
            try? undefine(ownerAuth: [])  // defined, but not ours to use: freed where the owner allows
            throw error
        }
    }

    /// Writes `pinCount` and `pinLimit` through `branch` of the index's policy.
    func write(count: UInt32, limit: UInt32, through branch: PinIndexPolicy.Branch) throws {
        let conn = connection
        let esys = try conn.context()
        var data = TPM2B_MAX_NV_BUFFER()
        try TPM2BBytes.fill(
            &data, size: \.size, buffer: \.buffer, from: Self.bigEndian(count) + Self.bigEndian(limit),
            what: "PIN index data")
        try withPolicy(branch) { handle, policy in
            try conn.check(
                sr_Esys_NV_Write(esys, handle, handle, policy, ESYS_TR_NONE, ESYS_TR_NONE, &data, 0),
                "Esys_NV_Write(PIN index)")
        }
    }

    /// `pinCount` back to 0 (and `pinLimit` to `limit`), with the owner authorization.
    public func reset(limit: UInt32, ownerAuth: [UInt8]) throws {
        try connection.withOwner(ownerAuth) { try write(count: 0, limit: limit, through: .ownerWrite) }
    }

    /// `pinCount` and `pinLimit`, read through the policy's read branch: anyone may, and
    /// it counts nothing. An unsalted session: nothing secret crosses, and no storage key
    /// is needed.
    public func read() throws -> (count: UInt32, limit: UInt32) {
        let conn = connection
        let esys = try conn.context()
        return try conn.withNVIndex(index) { handle in
            try conn.withSession(.policy, saltKey: nil, attributes: 0) { policy in
                try PinIndexPolicy.satisfy(.read, in: policy, salt: nil, conn)
                var data: UnsafeMutablePointer<TPM2B_MAX_NV_BUFFER>?
                try conn.check(
                    sr_Esys_NV_Read(esys, handle, handle, policy, ESYS_TR_NONE, ESYS_TR_NONE, Self.dataSize, 0, &data),
                    "Esys_NV_Read(PIN index)")
                defer { TPM2BBytes.free(data) }
                let bytes = data.map { TPM2BBytes.read($0.pointee, size: \.size, buffer: \.buffer) } ?? []
                guard bytes.count == Int(Self.dataSize) else {
                    throw TPMError.tpm(
                        ResponseCode(ResponseCode.esysBadSequence), operation: "Esys_NV_Read(PIN index) output")
                }
                return (Self.number(bytes[0..<4]), Self.number(bytes[4..<8]))
            }
        }
    }

    /// Removes the index, with the owner authorization (after hardening, only the holder
    /// of the owner secret can).
    public func undefine(ownerAuth: [UInt8]) throws {
        let conn = connection
        let esys = try conn.context()
        try conn.withOwner(ownerAuth) {
            try conn.withNVIndex(index) { handle in
                try conn.withStorageKey { srk in
                    try conn.withSession(.saltedHMAC, saltKey: srk, attributes: 0) { session in
                        try conn.check(
                            sr_Esys_NV_UndefineSpace(
                                esys, ESYS_TR_RH_OWNER, handle, session, ESYS_TR_NONE, ESYS_TR_NONE),
                            "Esys_NV_UndefineSpace(PIN index)")
                    }
                }
            }
        }
    }

    /// Runs `body` with the index's handle and a salted policy session in which `branch`
    /// of the index's policy holds, both released after.
    private func withPolicy<T>(
        _ branch: PinIndexPolicy.Branch, _ body: (_ index: ESYS_TR, _ policy: ESYS_TR) throws -> T
    ) throws -> T {
        let conn = connection
        return try conn.withNVIndex(index) { handle in
            try conn.withStorageKey { srk in
                try conn.withSession(.saltedPolicy, saltKey: srk, attributes: 0) { policy in
                    try PinIndexPolicy.satisfy(branch, in: policy, salt: srk, conn)
                    return try body(handle, policy)
                }
            }
        }
    }

    /// The index's Name, as the TPM reports it (`TPM2_NV_ReadPublic`): nameAlg and the
    /// hash of the public area, which changes once the index is written.
    public func name() throws -> [UInt8] {
        let conn = connection
        let esys = try conn.context()
        return try conn.withNVIndex(index) { try conn.trName(esys, $0) }
    }

    /// Proves `authValue` to the index in `policySession` (`TPM2_PolicySecret`), so that an
    /// object whose policy is `PinIndexPolicy.secret(name)` may be used in that session.
    /// A wrong authValue raises the index's `pinCount` and throws `.wrongAuth`; a right one
    /// sets it to 0; at the limit both throw `.pinLimitReached`. The authValue is an HMAC
    /// key inside a salted session, never sent. With `expectedName`, an index of another
    /// Name (undefined and defined again) is refused first (`.parentMismatch`).
    func prove(
        _ authValue: [UInt8], in policySession: ESYS_TR, salt srk: StorageKey, expectedName: [UInt8]? = nil
    ) throws {
        let conn = connection
        let esys = try conn.context()
        var auth = try TPM2B_DIGEST(checking: authValue, what: "PIN index authValue")
        defer { TPM2BBytes.wipe(&auth) }
        try conn.withNVIndex(index) { handle in
            if let expectedName, try conn.trName(esys, handle) != expectedName { throw TPMError.parentMismatch }
            try conn.check(sr_Esys_TR_SetAuth(esys, handle, &auth), "Esys_TR_SetAuth(PIN index)")
            let rc = try conn.policySecret(handle, in: policySession, salt: srk)
            if ResponseCode(rc).isFromTPM && ResponseCode(rc).base == ResponseCode.rcAuthUnavailable {
                throw TPMError.pinLimitReached(ResponseCode(rc))
            }
            try conn.check(rc, "Esys_PolicySecret(PIN index)")
        }
    }

    public static func bigEndian(_ value: UInt32) -> [UInt8] {
        [
            UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value),
        ]
    }

    public static func number(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }
}

extension TPMConnection {
    /// How many handles one TPML_HANDLE holds (TPM2_MAX_CAP_HANDLES: 1,016 bytes of 4).
    static let handlesPerPage = UInt32(MemoryLayout<TPML_HANDLE>.size - 4) / 4

    /// The NV indices defined at handles in `range` (`TPM2_GetCapability(TPM_CAP_HANDLES)`,
    /// asked again while the chip says there are more).
    public func nvIndices(in range: ClosedRange<UInt32>) throws -> [UInt32] {
        let esys = try context()
        var found: [UInt32] = []
        var next = range.lowerBound
        while true {
            var more: TPMI_YES_NO = 0
            var data: UnsafeMutablePointer<TPMS_CAPABILITY_DATA>?
            try check(
                sr_Esys_GetCapability(
                    esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, TPM2_CAP_HANDLES, next,
                    Self.handlesPerPage, &more, &data),
                "Esys_GetCapability(HANDLES)")
            defer { TPM2BBytes.free(data) }
            guard let handles = data?.pointee.data.handles else { return found }
            let page = withUnsafeBytes(of: handles.handle) { raw in
                Array(raw.assumingMemoryBound(to: TPM2_HANDLE.self).prefix(Int(handles.count)))
            }
            found += page.filter { range.contains($0) }
            guard more != 0, let last = page.last, last < range.upperBound, range.contains(last) else { return found }
            next = last + 1
        }
    }

    /// Overwrites the authorization ESAPI keeps for `handle` with zeros (size 0).
    /// `Esys_TR_SetAuth(handle, NULL)` only sets the size to 0, and `Esys_TR_Close` frees
    /// the node without wiping it: a value set with the whole zeroed struct is copied over
    /// the old bytes.
    func wipeAuth(of handle: ESYS_TR) {
        guard let esys = try? context() else { return }
        var zero = TPM2B_AUTH()
        _ = sr_Esys_TR_SetAuth(esys, handle, &zero)
    }

    /// `TPM2_PolicySecret` in `policySession` for `authHandle`, whose authorization is
    /// set on it in ESAPI and proven in a session salted with `srk` (never sent); the
    /// response code, for the caller to read (a PIN index's limit is one of them).
    func policySecret(_ authHandle: ESYS_TR, in policySession: ESYS_TR, salt srk: StorageKey) throws -> UInt32 {
        let esys = try context()
        return try withSession(.saltedHMAC, saltKey: srk, attributes: 0) { session in
            var timeout: UnsafeMutablePointer<TPM2B_TIMEOUT>?
            var ticket: UnsafeMutablePointer<TPMT_TK_AUTH>?
            defer {
                TPM2BBytes.free(timeout)
                TPM2BBytes.free(ticket)
            }
            return sr_Esys_PolicySecret(
                esys, authHandle, policySession, session, ESYS_TR_NONE, ESYS_TR_NONE, nil, nil, nil, 0, &timeout,
                &ticket)
        }
    }

    /// Runs `body` with the owner hierarchy's authorization set to `ownerAuth` in ESAPI,
    /// and wiped again after (so it does not linger in ESAPI's memory).
    /// A non-empty authorization is refused without the persistent storage key: a
    /// transient one would be made under the owner in a password session, in the clear.
    func withOwner<T>(_ ownerAuth: [UInt8], _ body: () throws -> T) throws -> T {
        let esys = try context()
        if !ownerAuth.isEmpty, try !hasPersistentStorageKey() {
            throw TPMError.invalidArgument("an owner authorization is used only with the persistent storage key")
        }
        var auth = try TPM2B_DIGEST(checking: ownerAuth, what: "owner auth")
        defer { TPM2BBytes.wipe(&auth) }
        try check(sr_Esys_TR_SetAuth(esys, ESYS_TR_RH_OWNER, &auth), "Esys_TR_SetAuth(owner)")
        defer { wipeAuth(of: ESYS_TR_RH_OWNER) }
        return try body()
    }

    /// Runs `body` with an ESAPI handle for the NV index at `index` (`Esys_TR_FromTPMPublic`:
    /// its public area and Name as the TPM reports them), released after. An index that is
    /// not there is `.objectRejected`: the chip was cleared or replaced, or someone removed it.
    func withNVIndex<T>(_ index: TPM2_HANDLE, _ body: (ESYS_TR) throws -> T) throws -> T {
        let esys = try context()
        var handle: ESYS_TR = ESYS_TR_NONE
        let rc = sr_Esys_TR_FromTPMPublic(esys, index, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &handle)
        if ResponseCode(rc).isFromTPM && ResponseCode(rc).base == ResponseCode.rcHandle {
            throw TPMError.objectRejected(ResponseCode(rc))
        }
        try check(rc, "Esys_TR_FromTPMPublic(NV index)")
        defer {
            wipeAuth(of: handle)
            closeTR(handle, "NV index")
        }
        return try body(handle)
    }
}
