// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomTransferCrypto
import SecureRoomBase

/// A Secret Service session: how secrets travel between one client and the provider
/// (docs/DESIGN.md §14). "plain" sends them as they are (the bus is the user's own);
/// "dh-ietf1024-sha256-aes128-cbc-pkcs7" agrees a key by Diffie-Hellman in the RFC 2409
/// 1024-bit group, HKDF-SHA256 (no salt, no info) of the shared secret to 16 bytes, and
/// sends each secret AES-128-CBC encrypted with PKCS#7 padding, its random IV as the
/// secret's parameters. Only the client that opened a session may use it.
final class TransferSession {
    /// The algorithms, by their Secret Service names.
    enum Algorithm: String {
        case plain
        case dhAES = "dh-ietf1024-sha256-aes128-cbc-pkcs7"
    }

    /// The unique bus name of the client that opened it.
    let owner: String
    /// The AES key (dh only).
    private let key: SecretBytes?

    private static let keyLength = 16
    private static let ivLength = 16

    private init(owner: String, key: SecretBytes?) {
        self.owner = owner
        self.key = key
    }

    /// Its algorithm: dh when a key was agreed.
    var algorithm: Algorithm { key == nil ? .plain : .dhAES }

    /// A plain session.
    static func plain(owner: String) -> TransferSession {
        TransferSession(owner: owner, key: nil)
    }

    /// A dh session from the client's public key; returns it and our public key.
    static func negotiate(owner: String, peerPublicKey: SecretBytes) throws -> (TransferSession, [UInt8]) {
        guard sr_transfer_crypto_load() == 0 else {
            throw BusFailure.failed("cannot load libcrypto: \(String(cString: sr_transfer_crypto_load_error()))")
        }
        var ours = [UInt8](repeating: 0, count: Int(SR_DH_IETF1024_LENGTH))
        let shared = SecretBytes(count: Int(SR_DH_IETF1024_LENGTH))
        let agreed = shared.withUnsafeMutableBytes { secret in
            peerPublicKey.withUnsafeBytes { peer in
                sr_dh_ietf1024(
                    peer.baseAddress?.assumingMemoryBound(to: UInt8.self), peer.count, &ours,
                    secret.baseAddress?.assumingMemoryBound(to: UInt8.self))
            }
        }
        guard agreed == 1 else {
            throw BusFailure.invalidArguments(
                "the client's public key is not a valid 1 to 128-byte value in the group (1 < y < p-1)")
        }
        // 16 bytes are within HKDF's limit: a guard, not a case that happens.
        guard let key = SealedKeys.derive(shared, info: "", length: keyLength) else {
            throw BusFailure.failed("key derivation failed")
        }
        return (TransferSession(owner: owner, key: key), ours)
    }

    /// The secret a client sent: `parameters` and `value` as they came.
    func decode(parameters: SecretBytes, value: SecretBytes) throws -> SecretBytes {
        guard let key else {
            guard parameters.count == 0 else {
                throw BusFailure.invalidArguments("a plain session's secret has no parameters")
            }
            return value
        }
        guard parameters.count == Self.ivLength else {
            throw BusFailure.invalidArguments(
                "the secret's parameters must be its 16-byte IV (got \(parameters.count) bytes)")
        }
        guard value.count > 0, value.count % 16 == 0 else {
            throw BusFailure.invalidArguments(
                "the encrypted secret is not a whole number of AES blocks (\(value.count) bytes)")
        }
        guard let plain = Self.crypt(encrypt: false, key: key, iv: parameters, input: value) else {
            throw BusFailure.invalidArguments("the secret does not decrypt (bad padding: wrong key or IV)")
        }
        return plain
    }

    /// The secret to send: (parameters, value).
    func encode(_ secret: SecretBytes) throws -> (parameters: [UInt8], value: SecretBytes) {
        guard let key else { return ([], secret) }
        let iv = try SecretBytes.random(count: Self.ivLength)
        guard let value = Self.crypt(encrypt: true, key: key, iv: iv, input: secret) else {
            throw BusFailure.failed("encryption failed in libcrypto")
        }
        return (iv.withUnsafeBytes { Array($0) }, value)
    }

    /// AES-128-CBC with PKCS#7 padding of `input`, into a wiped buffer of the result's
    /// length; nil if libcrypto refuses it (on decryption: bad padding).
    private static func crypt(encrypt: Bool, key: SecretBytes, iv: SecretBytes, input: SecretBytes) -> SecretBytes? {
        let output = SecretBytes(count: input.count + 16)
        var length = 0
        let ok = output.withUnsafeMutableBytes { out in
            key.withUnsafeBytes { key in
                iv.withUnsafeBytes { iv in
                    input.withUnsafeBytes { input in
                        sr_aes128_cbc(
                            encrypt ? 1 : 0, key.baseAddress?.assumingMemoryBound(to: UInt8.self),
                            iv.baseAddress?.assumingMemoryBound(to: UInt8.self), input.baseAddress, input.count,
                            out.baseAddress?.assumingMemoryBound(to: UInt8.self), &length) == 1
                    }
                }
            }
        }
        guard ok else { return nil }
        return output.withUnsafeBytes { SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
    }
}
