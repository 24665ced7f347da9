// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CTSS2
import SecureRoomBase

/// One ESAPI connection to a TPM.
///
/// Owns two C contexts:
/// * the TCTI context (`Tss2_TctiLdr_Initialize`): the transport, e.g.
///   `device:/dev/tpmrm0` or `swtpm:host=127.0.0.1,port=2321`;
/// * the ESAPI context (`Esys_Initialize`): tracks ESYS_TR handles, session
///   nonces, auth values and does parameter encryption / HMACs.
///
/// Not thread-safe; use one connection per thread. After a TCTI failure
/// ESAPI puts its context into an internal error state in which every call
/// returns `TSS2_ESYS_RC_BAD_SEQUENCE`, so the connection marks itself
/// broken and all further operations throw `.tpmUnreachable`.
///
/// Without a resource manager (swtpm, `/dev/tpm0`) every transient object and
/// session we create stays in the TPM until explicitly flushed, even after
/// this process exits. All the operations in TPMESAPI therefore flush what they
/// create on every path (see `flush(_:)`).
public final class TPMConnection {
    private var esys: OpaquePointer?
    private var tcti: OpaquePointer?

    /// The TCTI configuration string this connection was opened with.
    public let tctiConfig: String

    /// The TCTI-layer error that broke this connection (first one seen),
    /// with the operation it happened in. Once set, every further
    /// operation throws `.tpmUnreachable` carrying this code without
    /// touching ESAPI; the connection must be closed and reopened.
    public private(set) var brokenBy: (code: ResponseCode, operation: String)?

    /// True after a TCTI-layer error.
    public var isBroken: Bool { brokenBy != nil }

    private func markBroken(_ code: ResponseCode, _ operation: String) {
        if brokenBy == nil { brokenBy = (code, operation) }
    }

    /// Flush/close failures seen in cleanup paths (which cannot throw).
    /// Empty in normal operation; used by the check to prove nothing leaked.
    public private(set) var cleanupFailures: [String] = []

    /// Loads tpm2-tss if this is the process's first TPM call (`sr_tss2_load`), then opens
    /// the TCTI (`Tss2_TctiLdr_Initialize`) and the ESAPI context (`Esys_Initialize`). Both
    /// are released again on failure; libraries that cannot be loaded make the chip
    /// unreachable, with dlopen's reason.
    public init(tcti config: String) throws {
        _ = TSS2Logging.silenced
        self.tctiConfig = config
        guard sr_tss2_load() == 0 else {
            throw TPMError.tpmUnreachable(
                ResponseCode(SR_TSS2_RC_UNAVAILABLE),
                operation: "loading tpm2-tss (\(String(cString: sr_tss2_load_error())))")
        }
        var tctiContext: OpaquePointer?
        let rc = sr_Tss2_TctiLdr_Initialize(config, &tctiContext)
        guard rc == 0, let tctiContext else {
            // A failing TctiLdr_Initialize reports a TCTI-layer code (e.g.
            // 0xa000a IO_ERROR when nothing listens on the port).
            let code = rc == 0 ? UInt32(ResponseCode.tctiLayer | 1) : rc
            throw TPMError.tpmUnreachable(ResponseCode(code), operation: "Tss2_TctiLdr_Initialize")
        }
        var esysContext: OpaquePointer?
        let erc = sr_Esys_Initialize(&esysContext, tctiContext, nil)
        guard erc == 0, esysContext != nil else {
            var t: OpaquePointer? = tctiContext
            sr_Tss2_TctiLdr_Finalize(&t)
            throw TPMError.classify(
                erc == 0 ? ResponseCode.esysBadSequence : erc,
                operation: "Esys_Initialize")
        }
        self.tcti = tctiContext
        self.esys = esysContext
    }

    /// Releases the ESAPI context (`Esys_Finalize`) and the TCTI
    /// (`Tss2_TctiLdr_Finalize`). Idempotent. Does not talk to the TPM, so it
    /// cannot fail even if the TPM is gone.
    public func close() {
        if esys != nil {
            sr_Esys_Finalize(&esys)
            esys = nil
        }
        if tcti != nil {
            sr_Tss2_TctiLdr_Finalize(&tcti)
            tcti = nil
        }
    }

    deinit { close() }

    // MARK: internal plumbing

    /// The ESAPI context, or a throw if closed or broken.
    func context() throws -> OpaquePointer {
        guard let esys else { throw TPMError.closed }
        if let brokenBy {
            throw TPMError.tpmUnreachable(
                brokenBy.code,
                operation: "connection broken earlier in \(brokenBy.operation)")
        }
        return esys
    }

    /// Converts a TSS2_RC into a thrown `TPMError`; marks the connection
    /// broken on TCTI errors (and on ESAPI BAD_SEQUENCE, which is what
    /// ESAPI returns once its context went into the internal error state).
    func check(_ rc: UInt32, _ operation: String) throws {
        guard rc != 0 else { return }
        let error = TPMError.classify(rc, operation: operation)
        if case let .tpmUnreachable(code, _) = error { markBroken(code, operation) }
        if rc == ResponseCode.esysBadSequence {
            markBroken(ResponseCode(rc), operation)
            throw TPMError.tpmUnreachable(ResponseCode(rc), operation: operation)
        }
        throw error
    }

    /// Flushes a transient object or session from the TPM
    /// (`Esys_FlushContext`), which also drops ESAPI's ESYS_TR for it. If the
    /// TPM can't be told (broken connection, flush error), the ESYS_TR is at
    /// least released locally with `Esys_TR_Close` and the failure recorded.
    func flush(_ handle: ESYS_TR, _ what: String) {
        guard let esys, handle != ESYS_TR_NONE else { return }
        if !isBroken {
            let rc = sr_Esys_FlushContext(esys, handle)
            if rc == 0 { return }
            let code = ResponseCode(rc)
            cleanupFailures.append("flush \(what): \(code)")
            if code.layer == ResponseCode.tctiLayer || rc == ResponseCode.esysBadSequence {
                markBroken(code, "Esys_FlushContext(\(what))")
            }
        } else {
            cleanupFailures.append("flush \(what): skipped, connection broken")
        }
        var h = handle
        _ = sr_Esys_TR_Close(esys, &h)
    }

    /// Releases only ESAPI's bookkeeping for a handle that must not be
    /// flushed (a persistent object such as the SRK at 0x81000001).
    func closeTR(_ handle: ESYS_TR, _ what: String) {
        guard let esys, handle != ESYS_TR_NONE else { return }
        var h = handle
        let rc = sr_Esys_TR_Close(esys, &h)
        if rc != 0 { cleanupFailures.append("TR_Close \(what): \(ResponseCode(rc))") }
    }
}
