// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// What the PAM module's `auth` keeps of an expired PIN it accepted, so that `account` can refuse that
/// same PIN as its replacement (an administrator's PIN must not survive its first use):
/// a fresh 16-byte salt, the record's argon2 parameters, and argon2id(PIN, salt, pepper,
/// user) with them, wiped with the PAM handle. Searching it costs what the PIN's own
/// record costs, never less (argon2 with the same parameters and the same pepper, where a
/// keyed hash would give all 10,000 candidates in microseconds); it never leaves the
/// process. Each candidate compared with it costs one argon2 run.
enum ExpiredPINProof {
    private static let parametersLength = 12

    /// salt ‖ memory, passes, lanes (32-bit big-endian each) ‖ argon2id output, with the
    /// parameters of `user`'s record in `store`.
    static func make(_ pin: SecretBytes, for user: UserName, store: StateStore) throws -> SecretBytes {
        guard let parameters = try store.credential(for: user)?.parameters else {
            throw SecureRoomError.notEnrolled(user: user.rawValue)
        }
        let salt = try SecretBytes.random(count: Argon2id.saltLength).withUnsafeBytes { Array($0) }  // not secret
        let derived = try PINKeys.master(
            pin: pin, user: user, salt: salt, pepper: try store.pepper(), parameters: parameters)
        var header = salt
        for value in [parameters.memoryKiB, parameters.iterations, parameters.lanes] {
            header += withUnsafeBytes(of: value.bigEndian) { Array($0) }
        }
        let check = SecretBytes(count: header.count + derived.count)
        check.withUnsafeMutableBytes { out in
            for (index, byte) in header.enumerated() { out[index] = byte }
            derived.withUnsafeBytes { for (index, byte) in $0.enumerated() { out[header.count + index] = byte } }
        }
        return check
    }

    /// Whether `pin` is the PIN `check` was made from (one argon2 run; constant-time compare).
    static func matches(_ pin: SecretBytes, _ check: SecretBytes, for user: UserName, store: StateStore) throws
        -> Bool
    {
        let prefix = Argon2id.saltLength + parametersLength
        guard check.count == prefix + Argon2id.outputLength else { return false }
        let (salt, parameters) = check.withUnsafeBytes { bytes -> ([UInt8], KDFParameters) in
            func word(_ at: Int) -> UInt32 {
                bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) }
            }
            let at = Argon2id.saltLength
            return (
                Array(bytes.prefix(Argon2id.saltLength)),
                KDFParameters(memoryKiB: word(at), iterations: word(at + 4), lanes: word(at + 8))
            )
        }
        let derived = try PINKeys.master(
            pin: pin, user: user, salt: salt, pepper: try store.pepper(), parameters: parameters)
        return check.withUnsafeBytes {
            derived.constantTimeEquals(UnsafeRawBufferPointer(rebasing: $0.dropFirst(prefix)))
        }
    }
}
