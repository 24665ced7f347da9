// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CTSS2
import SecureRoomBase

/// The authorization policy of a PIN index (`PinCounter`) and of an owner hierarchy that
/// may only define indices, computed here (SHA-256 of public values, TPM 2.0 Part 3
/// §23) and satisfied in policy sessions (measured on swtpm: docs/TPM-PIN-INDEX.notes.md §9–10).
///
/// The index's authPolicy is PolicyOR of three branches, none with PolicyAuthValue (which
/// would let an authValue be tried past the limit, notes §6):
/// * `firstWrite`: PolicyNvWritten(NO) ∧ PolicyCommandCode(NV_Write): anyone may write
///   `pinCount || pinLimit` once, while the index is unwritten;
/// * `ownerWrite`: PolicySecret(owner) ∧ PolicyCommandCode(NV_Write): after that, only the
///   holder of the owner authorization may set the counter back;
/// * `read`: PolicyCommandCode(NV_Read): anyone may read the counter, which tells nothing
///   about the PIN and counts nothing.
///
/// The PIN's own authValue authorizes nothing but PolicySecret(index) (the index is
/// neither AUTHREAD nor AUTHWRITE), and a wrong one is counted there.
enum PinIndexPolicy {
    /// A branch of the index's policy.
    enum Branch {
        case firstWrite
        case ownerWrite
        case read
    }

    /// The TPM's name of the owner hierarchy: its handle, big-endian.
    static let ownerName = PinCounter.bigEndian(TPM2_RH_OWNER)

    /// `H(old || TPM_CC_PolicyCommandCode || code)`.
    static func commandCode(_ code: TPM2_CC, after old: [UInt8]) -> [UInt8] {
        SealedKeys.sha256(old + PinCounter.bigEndian(TPM2_CC_PolicyCommandCode) + PinCounter.bigEndian(code))
    }

    /// `H(H(old || TPM_CC_PolicySecret || name) || "")`: an empty policyRef is hashed in a
    /// second step. (Computed, not run in a trial session: a trial PolicySecret would have
    /// to prove the authorization, and a PIN index counts a wrong one.)
    static func secret(_ name: [UInt8], after old: [UInt8] = zero) -> [UInt8] {
        SealedKeys.sha256(SealedKeys.sha256(old + PinCounter.bigEndian(TPM2_CC_PolicySecret) + name))
    }

    /// A policy session's digest when it starts.
    static let zero = [UInt8](repeating: 0, count: 32)

    /// The digest one branch leaves in a session.
    static func digest(of branch: Branch) -> [UInt8] {
        switch branch {
        case .firstWrite:
            // PolicyNvWritten(NO): H(0^32 || TPM_CC_PolicyNvWritten || 0x00).
            let unwritten = SealedKeys.sha256(zero + PinCounter.bigEndian(TPM2_CC_PolicyNvWritten) + [0])
            return commandCode(TPM2_CC_NV_Write, after: unwritten)
        case .ownerWrite:
            return commandCode(TPM2_CC_NV_Write, after: secret(ownerName))
        case .read:
            return commandCode(TPM2_CC_NV_Read, after: zero)
        }
    }

    /// The three branches, in the order PolicyOR lists them.
    static let branches = [Branch.firstWrite, .ownerWrite, .read].map(digest(of:))

    /// The index's authPolicy: `H(0^32 || TPM_CC_PolicyOR || a || b || c)`.
    static let authPolicy = SealedKeys.sha256(zero + PinCounter.bigEndian(TPM2_CC_PolicyOR) + branches.joined())

    /// The owner hierarchy's policy once hardened: PolicyCommandCode(NV_DefineSpace), so
    /// that indices can be defined without the owner authorization and nothing else can
    /// be done with the owner hierarchy (notes §10).
    static let defineSpaceOnly = commandCode(TPM2_CC_NV_DefineSpace, after: zero)

    /// Runs `branch`'s assertions in `session`, then PolicyOR. For `ownerWrite` the owner
    /// authorization must be set on the connection (`withOwner`); it is proven in a
    /// session salted with `srk`.
    static func satisfy(
        _ branch: Branch, in session: ESYS_TR, salt srk: StorageKey?, _ connection: TPMConnection
    ) throws {
        let esys = try connection.context()
        switch branch {
        case .firstWrite:
            try connection.check(
                sr_Esys_PolicyNvWritten(esys, session, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, TPMI_YES_NO(TPM2_NO)),
                "Esys_PolicyNvWritten")
            try connection.check(
                sr_Esys_PolicyCommandCode(esys, session, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, TPM2_CC_NV_Write),
                "Esys_PolicyCommandCode(NV_Write)")
        case .ownerWrite:
            guard let srk else { throw TPMError.invalidArgument("the owner is proven in a salted session") }
            try connection.check(
                try connection.policySecret(ESYS_TR_RH_OWNER, in: session, salt: srk), "Esys_PolicySecret(owner)")
            try connection.check(
                sr_Esys_PolicyCommandCode(esys, session, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, TPM2_CC_NV_Write),
                "Esys_PolicyCommandCode(NV_Write)")
        case .read:
            try connection.check(
                sr_Esys_PolicyCommandCode(esys, session, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, TPM2_CC_NV_Read),
                "Esys_PolicyCommandCode(NV_Read)")
        }
        var list = TPML_DIGEST()
        let digests = branches
        list.count = UInt32(digests.count)
        withUnsafeMutableBytes(of: &list.digests) { raw in
            let slots = raw.bindMemory(to: TPM2B_DIGEST.self)
            for (slot, digest) in zip(slots.indices, digests) {
                slots[slot].size = UInt16(digest.count)
                withUnsafeMutableBytes(of: &slots[slot].buffer) { buffer in
                    buffer.copyBytes(from: digest)
                }
            }
        }
        try connection.check(
            sr_Esys_PolicyOR(esys, session, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &list), "Esys_PolicyOR")
    }
}
