// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CTSS2
import SecureRoomBase

/// A TSS2 return code (`TSS2_RC`) together with its `Tss2_RC_Decode` text,
/// captured at the moment the error happened (`Tss2_RC_Decode` returns a
/// pointer into a static buffer that the next call overwrites).
///
/// TPM response codes come in two formats (TPM 2.0 Part 2, 6.6):
/// * format zero (bit 7 clear): warnings/errors such as `TPM_RC_LOCKOUT`
///   (0x921). The whole 12-bit value is the code.
/// * format one (bit 7 set): errors that name the handle, session or
///   parameter they refer to. Bits 8..11 carry that number, bit 6 (`P`)
///   says "parameter", bit 11 (`S`) with P clear says "session". To compare
///   against the base constant (`TPM_RC_AUTH_FAIL` = 0x08E, ...) mask them
///   off: `rc & 0x0BF` (equivalently `rc & ~0xF40` on the 12-bit code).
///   The frequently quoted `rc & ~0xF00` is enough for session errors, but
///   not for parameter errors, which also carry the P bit (0x040).
public struct ResponseCode: Hashable, Sendable, CustomStringConvertible {
    /// The raw TSS2_RC.
    public let raw: UInt32
    /// `Tss2_RC_Decode(raw)`, copied.
    public let text: String

    public init(_ raw: UInt32) {
        self.raw = raw
        if let cText = sr_Tss2_RC_Decode(raw) {
            self.text = String(cString: cText)
        } else {
            self.text = "(no decode)"
        }
    }

    // MARK: layers (tss2_common.h; these are shift expressions Swift does not import)

    public static let layerMask: UInt32 = 0x00FF_0000
    public static let tpmLayer: UInt32 = 0
    public static let esysLayer: UInt32 = 7 << 16
    public static let sysLayer: UInt32 = 8 << 16
    public static let muLayer: UInt32 = 9 << 16
    public static let tctiLayer: UInt32 = 10 << 16
    public static let resmgrLayer: UInt32 = 11 << 16
    public static let resmgrTPMLayer: UInt32 = 12 << 16

    /// The layer that produced the code.
    public var layer: UInt32 { raw & Self.layerMask }

    /// True for codes produced by the TPM itself (or passed through a resource manager).
    public var isFromTPM: Bool {
        layer == Self.tpmLayer || layer == Self.resmgrTPMLayer
    }

    /// True if the TPM code uses format one (bit 7 set).
    public var isFormatOne: Bool { isFromTPM && (raw & 0x080) != 0 }

    /// The TPM code with layer and handle/session/parameter number bits removed.
    /// For format-one codes this is `raw & 0x0BF`; for format-zero it is `raw & 0xFFF`.
    /// For non-TPM layers it is the raw value.
    public var base: UInt32 {
        guard isFromTPM else { return raw }
        return isFormatOne ? (raw & 0x0BF) : (raw & 0xFFF)
    }

    /// Session number (1...3) a format-one error refers to, if it is a session error.
    public var sessionNumber: Int? {
        guard isFormatOne, raw & 0x040 == 0, raw & 0x800 != 0 else { return nil }
        return Int((raw >> 8) & 0x7)
    }

    /// Parameter number a format-one error refers to, if it is a parameter error.
    public var parameterNumber: Int? {
        guard isFormatOne, raw & 0x040 != 0 else { return nil }
        return Int((raw >> 8) & 0xF)
    }

    /// Handle number a format-one error refers to, if it is a handle error.
    public var handleNumber: Int? {
        guard isFormatOne, raw & 0x040 == 0, raw & 0x800 == 0 else { return nil }
        let n = Int((raw >> 8) & 0x7)
        return n == 0 ? nil : n
    }

    public var hex: String {
        let digits = String(raw, radix: 16, uppercase: false)
        return "0x" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    public var description: String { "\(hex) (\(text))" }

    // MARK: TPM response code constants (tss2_tpm2_types.h defines these as
    // nested macro arithmetic, which Swift does not import).

    public static let fmt1: UInt32 = 0x080
    public static let rcValue: UInt32 = fmt1 + 0x004
    public static let rcHierarchy: UInt32 = fmt1 + 0x005
    public static let rcHandle: UInt32 = fmt1 + 0x00B
    public static let rcAuthFail: UInt32 = fmt1 + 0x00E
    public static let rcPolicyFail: UInt32 = fmt1 + 0x019
    public static let rcKey: UInt32 = fmt1 + 0x01C
    public static let rcIntegrity: UInt32 = fmt1 + 0x01F
    public static let rcBadAuth: UInt32 = fmt1 + 0x022
    public static let rcBinding: UInt32 = fmt1 + 0x025
    public static let rcWarn: UInt32 = 0x900
    public static let rcObjectMemory: UInt32 = rcWarn + 0x002
    public static let rcSessionMemory: UInt32 = rcWarn + 0x003
    public static let rcLockout: UInt32 = rcWarn + 0x021
    public static let rcRetry: UInt32 = rcWarn + 0x022
    public static let rcAuthUnavailable: UInt32 = 0x12F  // TPM_RC_VER1 + 0x02F
    public static let rcNVSpace: UInt32 = 0x14B  // TPM_RC_VER1 + 0x04B: no room for another NV index
    public static let rcNVDefined: UInt32 = 0x14C  // TPM_RC_VER1 + 0x04C: the handle is taken

    /// ESAPI: the context is in an error state (e.g. after a TCTI failure).
    public static let esysBadSequence: UInt32 = esysLayer + 7
    /// ESAPI: the response HMAC did not verify (response tampered or wrong auth cached).
    public static let esysResponseAuthFailed: UInt32 = esysLayer + 27  // TSS2_BASE_RC_RSP_AUTH_FAILED
}
