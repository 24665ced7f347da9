// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CTSS2

/// A failure counter for one PIN inside the TPM: an NV index of type `TPM_NT_PIN_FAIL`
/// (TPM 2.0 Part 1 §37, Part 2 TPMA_NV). Its data is `pinCount || pinLimit` (two big-endian
/// 32-bit numbers); an authorization with its authValue that fails raises `pinCount`, one
/// that succeeds sets it to 0, and once `pinCount >= pinLimit` every authorization with
/// the authValue is refused (`TPM_RC_AUTH_UNAVAILABLE`), the right one too. Only the owner
/// hierarchy can read it without counting, or set it back.
///
/// Attributes (what swtpm accepts for this type, and nothing more):
/// * `TPM_NT_PIN_FAIL`, `NO_DA`: a wrong authValue counts here, never on the chip's
///   dictionary-attack counter, which every user and disk encryption share (the TPM
///   refuses a PIN_FAIL index without `NO_DA`);
/// * `OWNERWRITE`, `OWNERREAD`: only the owner hierarchy sets the counter or reads it;
/// * no `AUTHREAD`/`AUTHWRITE`/`POLICY*`: the authValue only authorizes, through
///   `PolicySecret`; a policy with `PolicyAuthValue` would pass the limit;
/// * not `ORDERLY` or `CLEAR_STCLEAR`: either loses the written state at a restart, and the
///   PIN would stop working until the owner writes the index again.
///
/// Whoever holds the owner authorization can undefine the index and define one with the
/// same public area (and so the same Name) under an authValue of their choice: a policy
/// that names the index (`PolicySecret`) is then satisfied by that forgery. The counter
/// holds against root only while root lacks the owner authorization.
public struct PinCounter {
    /// The connection.
    public let connection: TPMConnection
    /// The index's TPM handle (`0x01xxxxxx`).
    public let index: TPM2_HANDLE

    /// A counter at `index`.
    public init(connection: TPMConnection, index: TPM2_HANDLE) {
        self.connection = connection
        self.index = index
    }

    /// The data size of a PIN index: pinCount and pinLimit.
    static let dataSize: UInt16 = 8

    /// The public area of the index (its Name is the hash of this, once written).
    func publicInfo() -> TPM2B_NV_PUBLIC {
        var info = TPM2B_NV_PUBLIC()
        info.nvPublic.nvIndex = index
        info.nvPublic.nameAlg = TPM2_ALG_SHA256
        info.nvPublic.attributes =
            (TPMA_NV(TPM2_NT_PIN_FAIL) << TPMA_NV_TPM2_NT_SHIFT) | TPMA_NV_NO_DA | TPMA_NV_OWNERWRITE
            | TPMA_NV_OWNERREAD
        info.nvPublic.dataSize = Self.dataSize
        return info
    }

    /// Defines the index with `authValue` (derived from the PIN) and writes `pinCount` 0
    /// and `pinLimit` = `limit`, with the owner authorization `ownerAuth`. The authValue is
    /// the command's first parameter, encrypted by a salted session.
    public func define(authValue: [UInt8], limit: UInt32, ownerAuth: [UInt8]) throws {
        let conn = connection
        let esys = try conn.context()
        var auth = try TPM2B_DIGEST(checking: authValue, what: "PIN index authValue")
        defer { TPM2BBytes.wipe(&auth) }
        var info = publicInfo()
        try conn.withOwner(ownerAuth) {
            try conn.withStorageKey { srk in
                try conn.withSession(.saltedHMAC, saltKey: srk, attributes: TPMA_SESSION_DECRYPT) { session in
                    var handle: ESYS_TR = ESYS_TR_NONE
                    try conn.check(
                        Esys_NV_DefineSpace(
                            esys, ESYS_TR_RH_OWNER, session, ESYS_TR_NONE, ESYS_TR_NONE, &auth, &info, &handle),
                        "Esys_NV_DefineSpace(PIN index)")
                    conn.wipeAuth(of: handle)
                    conn.closeTR(handle, "PIN index")
                }
            }
            try writeCounter(count: 0, limit: limit)
        }
    }

    /// Sets `pinCount` and `pinLimit` (the owner authorization must be set on the connection).
    private func writeCounter(count: UInt32, limit: UInt32) throws {
        let conn = connection
        let esys = try conn.context()
        var data = TPM2B_MAX_NV_BUFFER()
        let bytes = Self.bigEndian(count) + Self.bigEndian(limit)
        try TPM2BBytes.fill(&data, size: \.size, buffer: \.buffer, from: bytes, what: "PIN index data")
        try withIndexSession { handle, session in
            try conn.check(
                Esys_NV_Write(esys, ESYS_TR_RH_OWNER, handle, session, ESYS_TR_NONE, ESYS_TR_NONE, &data, 0),
                "Esys_NV_Write(PIN index)")
        }
    }

    /// `pinCount` back to 0 (and `pinLimit` to `limit`), with the owner authorization.
    public func reset(limit: UInt32, ownerAuth: [UInt8]) throws {
        try connection.withOwner(ownerAuth) { try writeCounter(count: 0, limit: limit) }
    }

    /// `pinCount` and `pinLimit`, read with the owner authorization (counts nothing).
    public func read(ownerAuth: [UInt8]) throws -> (count: UInt32, limit: UInt32) {
        let conn = connection
        let esys = try conn.context()
        return try conn.withOwner(ownerAuth) {
            try withIndexSession { handle, session in
                var data: UnsafeMutablePointer<TPM2B_MAX_NV_BUFFER>?
                try conn.check(
                    Esys_NV_Read(
                        esys, ESYS_TR_RH_OWNER, handle, session, ESYS_TR_NONE, ESYS_TR_NONE, Self.dataSize, 0, &data),
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

    /// Removes the index, with the owner authorization.
    public func undefine(ownerAuth: [UInt8]) throws {
        let conn = connection
        let esys = try conn.context()
        try conn.withOwner(ownerAuth) {
            try withIndexSession { handle, session in
                try conn.check(
                    Esys_NV_UndefineSpace(esys, ESYS_TR_RH_OWNER, handle, session, ESYS_TR_NONE, ESYS_TR_NONE),
                    "Esys_NV_UndefineSpace(PIN index)")
            }
        }
    }

    /// Runs `body` with the index's handle and a salted HMAC session (for the owner's
    /// authorization, set on the connection by the caller), both released after.
    private func withIndexSession<T>(_ body: (_ index: ESYS_TR, _ session: ESYS_TR) throws -> T) throws -> T {
        let conn = connection
        return try conn.withNVIndex(index) { handle in
            try conn.withStorageKey { srk in
                try conn.withSession(.saltedHMAC, saltKey: srk, attributes: 0) { try body(handle, $0) }
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

    /// The policy digest of `PolicySecret(index)` with an empty policyRef:
    /// `SHA256(SHA256(0^32 || TPM_CC_PolicySecret || name) || "")`, hashed by the TPM
    /// (`TPM2_Hash`, which authorizes nothing). A trial session would have to prove the
    /// index's authValue, and so count.
    public func policySecretDigest() throws -> [UInt8] {
        let first = try connection.hash(
            [UInt8](repeating: 0, count: 32) + Self.bigEndian(TPM2_CC_PolicySecret) + name())
        return try connection.hash(first)
    }

    /// Proves `authValue` to the index in `policySession` (`TPM2_PolicySecret`), so that an
    /// object whose policy is `policySecretDigest(name:)` may be used in that session.
    /// A wrong authValue raises the index's `pinCount` and throws `.wrongAuth`; a right one
    /// sets it to 0; at the limit both throw `.pinLimitReached`. The authValue is an HMAC
    /// key inside a salted session, never sent.
    func prove(_ authValue: [UInt8], in policySession: ESYS_TR, salt srk: StorageKey) throws {
        let conn = connection
        let esys = try conn.context()
        var auth = try TPM2B_DIGEST(checking: authValue, what: "PIN index authValue")
        defer { TPM2BBytes.wipe(&auth) }
        try conn.withNVIndex(index) { handle in
            try conn.check(Esys_TR_SetAuth(esys, handle, &auth), "Esys_TR_SetAuth(PIN index)")
            try conn.withSession(.saltedHMAC, saltKey: srk, attributes: 0) { session in
                var timeout: UnsafeMutablePointer<TPM2B_TIMEOUT>?
                var ticket: UnsafeMutablePointer<TPMT_TK_AUTH>?
                let rc = Esys_PolicySecret(
                    esys, handle, policySession, session, ESYS_TR_NONE, ESYS_TR_NONE,
                    nil, nil, nil, 0, &timeout, &ticket)
                TPM2BBytes.free(timeout)
                TPM2BBytes.free(ticket)
                if ResponseCode(rc).isFromTPM && ResponseCode(rc).base == ResponseCode.rcAuthUnavailable {
                    throw TPMError.pinLimitReached(ResponseCode(rc))
                }
                try conn.check(rc, "Esys_PolicySecret(PIN index)")
            }
        }
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [
            UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value),
        ]
    }

    static func number(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }
}

extension TPMConnection {
    /// SHA-256 of `data` (at most 1,024 bytes) computed by the TPM (`TPM2_Hash`, no
    /// authorization, no ticket).
    func hash(_ data: [UInt8]) throws -> [UInt8] {
        let esys = try context()
        var input = TPM2B_MAX_BUFFER()
        try TPM2BBytes.fill(&input, size: \.size, buffer: \.buffer, from: data, what: "data to hash")
        var digest: UnsafeMutablePointer<TPM2B_DIGEST>?
        var ticket: UnsafeMutablePointer<TPMT_TK_HASHCHECK>?
        try check(
            Esys_Hash(
                esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &input, TPM2_ALG_SHA256, ESYS_TR_RH_NULL, &digest,
                &ticket),
            "Esys_Hash")
        defer {
            TPM2BBytes.free(digest)
            TPM2BBytes.free(ticket)
        }
        return digest?.pointee.bytes ?? []
    }

    /// Overwrites the authorization ESAPI keeps for `handle` with zeros (size 0).
    /// `Esys_TR_SetAuth(handle, NULL)` only sets the size to 0, and `Esys_TR_Close` frees
    /// the node without wiping it: a value set with the whole zeroed struct is copied over
    /// the old bytes.
    func wipeAuth(of handle: ESYS_TR) {
        guard let esys = try? context() else { return }
        var zero = TPM2B_AUTH()
        _ = Esys_TR_SetAuth(esys, handle, &zero)
    }

    /// Runs `body` with the owner hierarchy's authorization set to `ownerAuth` in ESAPI,
    /// and wiped again after (so it does not linger in ESAPI's memory).
    func withOwner<T>(_ ownerAuth: [UInt8], _ body: () throws -> T) throws -> T {
        let esys = try context()
        var auth = try TPM2B_DIGEST(checking: ownerAuth, what: "owner auth")
        defer { TPM2BBytes.wipe(&auth) }
        try check(Esys_TR_SetAuth(esys, ESYS_TR_RH_OWNER, &auth), "Esys_TR_SetAuth(owner)")
        defer { wipeAuth(of: ESYS_TR_RH_OWNER) }
        return try body()
    }

    /// Runs `body` with an ESAPI handle for the NV index at `index` (`Esys_TR_FromTPMPublic`:
    /// its public area and Name as the TPM reports them), released after.
    func withNVIndex<T>(_ index: TPM2_HANDLE, _ body: (ESYS_TR) throws -> T) throws -> T {
        let esys = try context()
        var handle: ESYS_TR = ESYS_TR_NONE
        try check(
            Esys_TR_FromTPMPublic(esys, index, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &handle),
            "Esys_TR_FromTPMPublic(NV index)")
        defer {
            wipeAuth(of: handle)
            closeTR(handle, "NV index")
        }
        return try body(handle)
    }
}
