// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomCrypto

/// The primitives every SecureRoom key goes through (docs/FORMAT.md §2, §7, §9), on the
/// system's Nettle (CSecureRoomCrypto): HKDF-SHA256 into a wiped buffer, HMAC-SHA256,
/// and ChaCha20-Poly1305 sealing and opening, with the plaintext only ever in wiped
/// buffers. Sealed data is `nonce (12) || ciphertext || tag (16)`.
public enum SealedKeys {
    /// Length of a ChaCha20-Poly1305 nonce and tag.
    public static let nonceLength = 12
    public static let tagLength = 16
    /// Length of every derived key and MAC.
    public static let keyLength = 32

    /// HKDF-SHA256(IKM = `input`, `salt`, `info`), 32 bytes.
    public static func derive(_ input: SecretBytes, salt: [UInt8] = [], info: String) -> SecretBytes {
        // HKDF fails only for more than 255 blocks, which 32 bytes are not; were it to fail,
        // the key would be zero, and whatever it seals or checks fail to verify, never match.
        derive(input, salt: salt, info: info, length: keyLength) ?? SecretBytes(count: keyLength)
    }

    /// HKDF-SHA256(IKM = `input`, `salt`, `info`), `length` bytes; nil beyond 255 × 32 bytes.
    public static func derive(_ input: SecretBytes, salt: [UInt8] = [], info: String, length: Int) -> SecretBytes? {
        let key = SecretBytes(count: length)
        let information = Array(info.utf8)
        let ok = key.withUnsafeMutableBytes { out in
            input.withUnsafeBytes { ikm in
                sr_hkdf_sha256(
                    ikm.baseAddress, ikm.count, salt, salt.count, information, information.count,
                    out.baseAddress?.assumingMemoryBound(to: UInt8.self), out.count)
            }
        }
        return ok == 1 ? key : nil
    }

    /// SHA-256(`data`), 32 bytes (for public values: TPM policy digests and Names).
    public static func sha256(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: keyLength)
        _ = sr_sha256(data, data.count, &out)
        return out
    }

    /// HMAC-SHA256(`key`, `data`), 32 bytes.
    public static func mac(_ data: [UInt8], key: SecretBytes) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: keyLength)
        _ = key.withUnsafeBytes { sr_hmac_sha256($0.baseAddress, $0.count, data, data.count, &out) }
        return out
    }

    /// Seals `plaintext` under `key` with a random nonce, authenticating `associatedData`.
    public static func seal(
        _ plaintext: UnsafeRawBufferPointer, key: SecretBytes, authenticating associatedData: [UInt8]
    ) throws -> [UInt8] {
        let nonce = try SecretBytes.random(count: nonceLength).withUnsafeBytes { Array($0) }
        var sealed = nonce + [UInt8](repeating: 0, count: plaintext.count + tagLength)
        let ok = sealed.withUnsafeMutableBufferPointer { out in
            key.withUnsafeBytes { key in
                sr_chacha20_poly1305_seal(
                    key.baseAddress?.assumingMemoryBound(to: UInt8.self), nonce,
                    associatedData, associatedData.count, plaintext.baseAddress, plaintext.count,
                    out.baseAddress.map { $0 + nonceLength }, out.baseAddress.map { $0 + nonceLength + plaintext.count }
                )
            }
        }
        // Nettle's sealing cannot fail today; the C interface keeps the status for another library.
        guard ok == 1 else { throw SecureRoomError.kdfFailure("ChaCha20-Poly1305 sealing failed") }
        return sealed
    }

    /// Opens `sealed` into a `SecretBytes`; nil if it does not authenticate.
    public static func open(_ sealed: [UInt8], key: SecretBytes, authenticating associatedData: [UInt8]) -> SecretBytes?
    {
        guard sealed.count >= nonceLength + tagLength else { return nil }
        let plain = SecretBytes(count: sealed.count - nonceLength - tagLength)
        let ok = plain.withUnsafeMutableBytes { out in
            sealed.withUnsafeBufferPointer { input in
                key.withUnsafeBytes { key in
                    sr_chacha20_poly1305_open(
                        key.baseAddress?.assumingMemoryBound(to: UInt8.self), input.baseAddress,
                        associatedData, associatedData.count, input.baseAddress.map { $0 + nonceLength },
                        out.count, input.baseAddress.map { $0 + sealed.count - tagLength },
                        out.baseAddress?.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        return ok == 1 ? plain : nil
    }
}
