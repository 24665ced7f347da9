// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import SecureRoomCore

/// What `auth` keeps of an expired PIN it accepted, so that `account` can refuse that
/// same PIN as its replacement (an administrator's PIN must not survive its first use):
/// a random 32-byte salt and HKDF-SHA256(PIN, salt), wiped with the PAM handle. Searching
/// it costs no less than the PIN's own record does, and it never leaves the process.
enum ExpiredPINCheck {
    private static let info = "secureroom/1 expired-pin check"
    private static let saltLength = 32

    /// salt ‖ HKDF(pin, salt).
    static func make(_ pin: SecretBytes) throws -> SecretBytes {
        let salt = try SecretBytes.random(count: saltLength).withUnsafeBytes { Array($0) }  // not secret
        let derived = SealedKeys.derive(pin, salt: salt, info: info)
        let check = SecretBytes(count: saltLength + SealedKeys.keyLength)
        check.withUnsafeMutableBytes { out in
            for (index, byte) in salt.enumerated() { out[index] = byte }
            derived.withUnsafeBytes { for (index, byte) in $0.enumerated() { out[saltLength + index] = byte } }
        }
        return check
    }

    /// Whether `pin` is the PIN `check` was made from (constant time).
    static func matches(_ pin: SecretBytes, _ check: SecretBytes) -> Bool {
        guard check.count == saltLength + SealedKeys.keyLength else { return false }
        let salt = check.withUnsafeBytes { Array($0.prefix(saltLength)) }
        let derived = SealedKeys.derive(pin, salt: salt, info: info)
        return check.withUnsafeBytes {
            derived.constantTimeEquals(UnsafeRawBufferPointer(rebasing: $0.dropFirst(saltLength)))
        }
    }
}
