// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc

/// The TPM at `tpm_tcti=`, reached through a connection per use, closed afterwards (a
/// check holds the chip for a few TPM commands only; docs/DESIGN.md §11).
public struct TPMChip: Sendable {
    /// The tpm2-tss TCTI string ("device:/dev/tpmrm0", "swtpm:host=127.0.0.1,port=N").
    public let tcti: String

    /// The chip configured in `configuration`.
    public init(_ configuration: Configuration) { tcti = configuration.tpmTCTI }

    /// Runs `body` on a new connection, closed on every path; ESAPI's errors become
    /// `SecureRoomError.tpm` (a wrong authorization value is the caller's to handle first).
    ///
    /// (tpm2-tss's logging is switched off by TSS2Logging before its first call.)
    public func withConnection<T>(_ body: (TPMConnection) throws -> T) throws -> T {
        if tcti.hasPrefix("device:"), access(String(tcti.dropFirst("device:".count)), F_OK) != 0 {
            throw SecureRoomError.tpm(.unreachable("\(tcti.dropFirst("device:".count)) does not exist"))
        }
        let connection: TPMConnection
        do { connection = try TPMConnection(tcti: tcti) } catch { throw Self.problem(error) }
        defer { connection.close() }
        do {
            return try body(connection)
        } catch TPMError.lockout {
            let status = try? DAStatus.read(connection)
            throw SecureRoomError.tpm(.lockedOut(seconds: status.map(Self.secondsLeft) ?? 0))
        } catch {
            throw Self.problem(error)
        }
    }

    /// Whether a TPM answers here (for `tpm=auto`).
    public func answers() -> Bool {
        (try? withConnection { try DAStatus.read($0) }) != nil
    }

    /// The chip's dictionary-attack state.
    public func daStatus() throws -> DAStatus {
        try withConnection { try DAStatus.read($0) }
    }

    /// Seconds until the chip leaves dictionary-attack lockout: its counter drops by one
    /// every lockout interval, and it is out once the counter is below the maximum.
    static func secondsLeft(_ status: DAStatus) -> Int {
        let steps = Int(status.lockoutCounter) - Int(status.maxAuthFail) + 1
        return max(1, steps) * Int(status.lockoutInterval)
    }

    /// An error of the TPM layer as SecureRoom reports it.
    static func problem(_ error: any Error) -> any Error {
        guard let error = error as? TPMError else { return error }
        switch error {
        case .tpmUnreachable, .closed: return SecureRoomError.tpm(.unreachable(error.description))
        case .lockout: return SecureRoomError.tpm(.lockedOut(seconds: 0))
        case .objectRejected, .parentMismatch: return SecureRoomError.tpm(.otherChip)
        case .pinLimitReached: return SecureRoomError.tpm(.pinSpent)
        case .pcrMismatch: return SecureRoomError.tpm(.bootChanged)
        case .tpm(let code, _) where code.isFromTPM && code.base == ResponseCode.rcNVSpace:
            return SecureRoomError.tpm(.full)
        default: return SecureRoomError.tpm(.failed(error.description))
        }
    }
}
