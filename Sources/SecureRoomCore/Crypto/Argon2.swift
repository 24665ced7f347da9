// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CArgon2
import Glibc

/// argon2id cost parameters, stored in every credential record.
///
/// Every value read from disk is bounded (`validate`), so a crafted record cannot make a
/// login allocate gigabytes or spin for minutes.
public struct KDFParameters: Equatable, Sendable {
    /// Memory in KiB (argon2's m).
    public var memoryKiB: UInt32
    /// Passes over memory (argon2's t).
    public var iterations: UInt32
    /// Lanes (argon2's p); the computation uses min(lanes, online CPUs) threads.
    public var lanes: UInt32

    /// Creates parameters; call `validate` before use.
    public init(memoryKiB: UInt32, iterations: UInt32, lanes: UInt32) {
        self.memoryKiB = memoryKiB
        self.iterations = iterations
        self.lanes = lanes
    }

    /// Defaults for new records: 64 MiB, 3 passes, 2 lanes (RFC 9106's second
    /// recommendation with lanes matched to a 2-core machine; ~0.2 s here).
    public static let defaults = KDFParameters(memoryKiB: 65_536, iterations: 3, lanes: 2)

    /// The least cost a configuration or a record may carry: OWASP's minimum for argon2id,
    /// 19 MiB and 2 passes. The memory must be at least 19 MiB, and memory × passes at
    /// least the floor's, so one pass needs 38 MiB (RFC 9106's first recommendation is
    /// one pass over 2 GiB). Below it a copy of the state is cheap to search
    /// (docs/SECURITY.md §1.4); only `argon2_below_floor` (test systems) accepts less.
    /// Lanes do not count: they spread the same work.
    public static let floor = KDFParameters(memoryKiB: 19_456, iterations: 2, lanes: 1)

    /// The floor in words, for messages and help.
    public static var floorDescription: String {
        "\(floor.memoryKiB) KiB (\(floor.memoryKiB / 1_024) MiB) and \(floor.iterations) passes "
            + "(memory at least \(floor.memoryKiB) KiB, memory × passes at least \(floor.work))"
    }

    /// Memory × passes, in KiB·passes: what one guess costs an attacker.
    public var work: UInt64 { UInt64(memoryKiB) * UInt64(iterations) }

    /// Whether the memory and memory × passes are both at least the floor's.
    public var meetsFloor: Bool { memoryKiB >= Self.floor.memoryKiB && work >= Self.floor.work }

    /// The parameters as `status` shows them: "m=65536,t=3,p=2".
    public var summary: String { "m=\(memoryKiB),t=\(iterations),p=\(lanes)" }

    /// Accepted ranges: memory 8 KiB × lanes to 1 GiB, 1 to 16 passes, 1 to 16 lanes.
    public static let memoryRange: ClosedRange<UInt32> = 8...1_048_576
    /// Accepted pass counts.
    public static let iterationRange: ClosedRange<UInt32> = 1...16
    /// Accepted lane counts.
    public static let laneRange: ClosedRange<UInt32> = 1...16

    /// Whether a record made with `record` is re-derived with these (configured)
    /// parameters at its next success: they differ, and neither memory nor passes go down.
    /// An attacker's cost per guess is memory × passes (lanes only spread it over cores),
    /// so a re-derivation never makes a record cheaper to search; a lowered configuration
    /// reaches PINs when they are set again.
    public func raises(_ record: KDFParameters) -> Bool {
        self != record && memoryKiB >= record.memoryKiB && iterations >= record.iterations
    }

    /// Throws unless every parameter is inside its accepted range.
    public func validate() throws {
        guard Self.laneRange.contains(lanes) else { throw bound("lanes \(lanes) outside \(Self.laneRange)") }
        guard Self.iterationRange.contains(iterations) else {
            throw bound("iterations \(iterations) outside \(Self.iterationRange)")
        }
        guard Self.memoryRange.contains(memoryKiB), memoryKiB >= 8 * lanes else {
            throw bound("memory \(memoryKiB) KiB outside 8×lanes...\(Self.memoryRange.upperBound)")
        }
    }

    private func bound(_ text: String) -> SecureRoomError { .kdfFailure(text) }
}

/// argon2id through libargon2's context API, the only form that takes a secret (the pepper).
public enum Argon2id {
    /// Length of the derived master key in bytes.
    public static let outputLength = 32
    /// Length of a record's salt in bytes.
    public static let saltLength = 16

    /// Derives the 32-byte master key from `password`.
    ///
    /// - Parameters:
    ///   - secret: the pepper (argon2's K); may be empty.
    ///   - associatedData: argon2's X; SecureRoom binds the user name here.
    /// - Parameter length: the output's length (argon2's tag length): `outputLength`, or 64
    ///   for a TPM-bound record's two halves (docs/FORMAT.md §2.1).
    public static func derive(
        password: SecretBytes, salt: [UInt8], secret: SecretBytes,
        associatedData: [UInt8], parameters: KDFParameters,
        length: Int = outputLength
    ) throws -> SecretBytes {
        try parameters.validate()
        let output = SecretBytes(count: length)
        let online = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        let threads = UInt32(max(1, min(Int(parameters.lanes), online > 0 ? online : 1)))
        var salt = salt
        var associatedData = associatedData
        let code: Int32 = output.withUnsafeMutableBytes { out in
            password.withUnsafeBytes { pwd in
                secret.withUnsafeBytes { key in
                    salt.withUnsafeMutableBytes { saltBuffer in
                        associatedData.withUnsafeMutableBytes { ad in
                            var context = argon2_context()
                            context.out = out.baseAddress?.assumingMemoryBound(to: UInt8.self)
                            context.outlen = UInt32(out.count)
                            context.pwd = UnsafeMutablePointer(
                                mutating: pwd.baseAddress?.assumingMemoryBound(to: UInt8.self))
                            context.pwdlen = UInt32(pwd.count)
                            context.salt = saltBuffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
                            context.saltlen = UInt32(saltBuffer.count)
                            context.secret =
                                secret.count > 0
                                ? UnsafeMutablePointer(mutating: key.baseAddress?.assumingMemoryBound(to: UInt8.self))
                                : nil
                            context.secretlen = UInt32(secret.count)
                            context.ad = ad.count > 0 ? ad.baseAddress?.assumingMemoryBound(to: UInt8.self) : nil
                            context.adlen = UInt32(ad.count)
                            context.t_cost = parameters.iterations
                            context.m_cost = parameters.memoryKiB
                            context.lanes = parameters.lanes
                            context.threads = threads
                            context.version = UInt32(ARGON2_VERSION_13.rawValue)
                            context.flags = 0  // ARGON2_DEFAULT_FLAGS: do not clear our buffers; SecretBytes wipes them
                            return argon2id_ctx(&context)
                        }
                    }
                }
            }
        }
        guard code == Int32(ARGON2_OK.rawValue) else {
            throw SecureRoomError.kdfFailure(String(cString: argon2_error_message(code)))
        }
        return output
    }
}
