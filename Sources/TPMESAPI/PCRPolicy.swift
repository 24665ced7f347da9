// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CTSS2
import SecureRoomBase

/// The state of the boot a PIN was bound in (`tpm_pcrs=`, docs/FORMAT.md §2.1): some of
/// the chip's SHA-256 PCRs and the digest of their values then. A secret sealed with it
/// adds PolicyPCR to its policy, so that a system booted otherwise (other firmware, boot
/// loader or Secure Boot state) cannot unseal it, and is not even asked: a check compares
/// the PCRs first and sends nothing derived from the PIN when they differ.
public struct PCRPolicy: Equatable, Sendable {
    /// The PCR indices, ascending, at most `maximumCount`.
    public let pcrs: [Int]
    /// SHA-256 of the PCRs' values, concatenated in ascending order, when bound.
    public let digest: [UInt8]

    /// The PCRs one policy may name (one `TPM2_PCR_Read` answers at most 8 values).
    public static let maximumCount = 8
    /// The PCRs a PC's TPM has.
    public static let indexRange = 0...23

    /// A policy from its parts (a record's lines).
    public init(pcrs: [Int], digest: [UInt8]) {
        self.pcrs = pcrs
        self.digest = digest
    }

    /// The policy of the boot running now, read from the chip.
    public static func current(_ pcrs: [Int], _ connection: TPMConnection) throws -> PCRPolicy {
        PCRPolicy(pcrs: pcrs, digest: try compositeDigest(pcrs, connection))
    }

    /// `TPML_PCR_SELECTION` marshalled: one bank, SHA-256, a 3-byte bitmap.
    var selectionBytes: [UInt8] {
        var bitmap: [UInt8] = [0, 0, 0]
        for pcr in pcrs { bitmap[pcr / 8] |= 1 << (pcr % 8) }
        return PinCounter.bigEndian(1) + [0x00, 0x0b, 3] + bitmap
    }

    /// The session digest after PolicyPCR: `H(old || TPM_CC_PolicyPCR || selection || digest)`.
    func policyDigest(after old: [UInt8] = PinIndexPolicy.zero) -> [UInt8] {
        SealedKeys.sha256(old + PinCounter.bigEndian(TPM2_CC_PolicyPCR) + selectionBytes + digest)
    }

    /// The selection as ESAPI takes it.
    private static func selection(_ pcrs: [Int]) -> TPML_PCR_SELECTION {
        var selection = TPML_PCR_SELECTION()
        selection.count = 1
        selection.pcrSelections.0.hash = TPM2_ALG_SHA256
        selection.pcrSelections.0.sizeofSelect = 3
        withUnsafeMutableBytes(of: &selection.pcrSelections.0.pcrSelect) { bitmap in
            for pcr in pcrs { bitmap[pcr / 8] |= 1 << (pcr % 8) }
        }
        return selection
    }

    /// SHA-256 of the current values of `pcrs` (`TPM2_PCR_Read`, no authorization).
    private static func compositeDigest(_ pcrs: [Int], _ connection: TPMConnection) throws -> [UInt8] {
        let esys = try connection.context()
        var selection = Self.selection(pcrs)
        var counter: UInt32 = 0
        var selected: UnsafeMutablePointer<TPML_PCR_SELECTION>?
        var values: UnsafeMutablePointer<TPML_DIGEST>?
        try connection.check(
            sr_Esys_PCR_Read(esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &selection, &counter, &selected, &values),
            "Esys_PCR_Read")
        defer {
            TPM2BBytes.free(selected)
            TPM2BBytes.free(values)
        }
        guard let list = values?.pointee, Int(list.count) == pcrs.count else {
            throw TPMError.invalidArgument("the TPM has no SHA-256 bank with PCRs \(pcrs)")
        }
        let concatenated = withUnsafeBytes(of: list.digests) { raw in
            raw.bindMemory(to: TPM2B_DIGEST.self).prefix(pcrs.count).flatMap { $0.bytes }
        }
        return SealedKeys.sha256(concatenated)
    }

    /// Runs PolicyPCR in `session` (the TPM hashes the PCRs' current values) and refuses,
    /// before anything else is sent, a boot whose values differ (`pcrMismatch`).
    func apply(in session: ESYS_TR, _ connection: TPMConnection) throws {
        let esys = try connection.context()
        var selection = Self.selection(pcrs)
        var empty = TPM2B_DIGEST()
        try connection.check(
            sr_Esys_PolicyPCR(esys, session, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &empty, &selection),
            "Esys_PolicyPCR")
        var reached: UnsafeMutablePointer<TPM2B_DIGEST>?
        try connection.check(
            sr_Esys_PolicyGetDigest(esys, session, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &reached),
            "Esys_PolicyGetDigest")
        defer { TPM2BBytes.free(reached) }
        guard reached?.pointee.bytes == policyDigest() else { throw TPMError.pcrMismatch }
    }
}
