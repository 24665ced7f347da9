// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CTSS2
import SecureRoomBase

/// Dictionary-attack state of the TPM, read with
/// `Esys_GetCapability(TPM2_CAP_TPM_PROPERTIES)` (no session, no auth).
public struct DAStatus: Equatable, Sendable {
    /// TPM2_PT_LOCKOUT_COUNTER: current failed-auth count.
    public let lockoutCounter: UInt32
    /// TPM2_PT_MAX_AUTH_FAIL: failures before lockout.
    public let maxAuthFail: UInt32
    /// TPM2_PT_LOCKOUT_INTERVAL: seconds per counter decrement.
    public let lockoutInterval: UInt32
    /// TPM2_PT_LOCKOUT_RECOVERY: seconds the lockout hierarchy stays
    /// unusable after a failed lockoutAuth.
    public let lockoutRecovery: UInt32
    /// TPM2_PT_PERMANENT raw TPMA_PERMANENT bits.
    public let permanent: UInt32
    /// TPM2_PT_MANUFACTURER as 4 ASCII characters (e.g. "IBM\0" for swtpm).
    public let manufacturer: String

    /// TPMA_PERMANENT.lockoutAuthSet (bit 2).
    public var lockoutAuthSet: Bool { permanent & 0x0000_0004 != 0 }
    /// TPMA_PERMANENT.ownerAuthSet (bit 0).
    public var ownerAuthSet: Bool { permanent & 0x0000_0001 != 0 }
    /// TPMA_PERMANENT.inLockout (bit 9).
    public var inLockout: Bool { permanent & 0x0000_0200 != 0 }

    // TPM2_PT_* (PT_FIXED = 0x100, PT_VAR = 0x200); Swift does not import
    // these macro sums.
    static let ptManufacturer: UInt32 = 0x105
    static let ptPermanent: UInt32 = 0x200
    static let ptLockoutCounter: UInt32 = 0x20E
    static let ptMaxAuthFail: UInt32 = 0x20F
    static let ptLockoutInterval: UInt32 = 0x210
    static let ptLockoutRecovery: UInt32 = 0x211

    /// Reads the properties: one GetCapability for 0x200...0x211, one for
    /// TPM2_PT_MANUFACTURER.
    public static func read(_ connection: TPMConnection) throws -> DAStatus {
        var props = try properties(connection, from: ptPermanent, count: ptLockoutRecovery - ptPermanent + 1)
        for (p, v) in try properties(connection, from: ptManufacturer, count: 1) { props[p] = v }
        func get(_ p: UInt32) throws -> UInt32 {
            guard let v = props[p] else {
                throw TPMError.tpm(
                    ResponseCode(0), operation: "GetCapability: property 0x\(String(p, radix: 16)) missing")
            }
            return v
        }
        let m = try get(ptManufacturer)
        let chars = [24, 16, 8, 0].map { shift -> Character in
            let byte = UInt8((m >> UInt32(shift)) & 0xFF)
            return byte == 0 ? "\0" : Character(Unicode.Scalar(byte))
        }
        return DAStatus(
            lockoutCounter: try get(ptLockoutCounter),
            maxAuthFail: try get(ptMaxAuthFail),
            lockoutInterval: try get(ptLockoutInterval),
            lockoutRecovery: try get(ptLockoutRecovery),
            permanent: try get(ptPermanent),
            manufacturer: String(chars))
    }

    static func properties(_ connection: TPMConnection, from first: UInt32, count: UInt32) throws -> [UInt32: UInt32] {
        let esys = try connection.context()
        var more: TPMI_YES_NO = 0
        var data: UnsafeMutablePointer<TPMS_CAPABILITY_DATA>?
        try connection.check(
            sr_Esys_GetCapability(
                esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
                TPM2_CAP_TPM_PROPERTIES, first, count, &more, &data),
            "Esys_GetCapability(TPM_PROPERTIES)")
        defer { TPM2BBytes.free(data) }
        guard let data else { return [:] }
        var result: [UInt32: UInt32] = [:]
        let n = Int(data.pointee.data.tpmProperties.count)
        withUnsafeBytes(of: data.pointee.data.tpmProperties.tpmProperty) { raw in
            let list = raw.assumingMemoryBound(to: TPMS_TAGGED_PROPERTY.self)
            for i in 0..<min(n, list.count) { result[list[i].property] = list[i].value }
        }
        return result
    }
}
