// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Key material after a helper's `success` (docs/SECURITY.md §3): the caller's own vault
/// key, and on `setup-vault` the new recovery key, as words on the reply line:
///
///     success vault-key=HEX64 recovery-key=DIGITS40
///
/// Encoded into and decoded from `SecretBytes`, never a `String`.
public enum HelperSecrets {
    private static let vaultKeyWord = Array(" vault-key=".utf8)
    private static let recoveryKeyWord = Array(" recovery-key=".utf8)

    /// The words that follow `success` (empty when there is no key material).
    public static func encode(vaultKey: SecretBytes?, recoveryKey: RecoveryKey?) -> SecretBytes {
        let length =
            (vaultKey.map { vaultKeyWord.count + 2 * $0.count } ?? 0)
            + (recoveryKey.map { recoveryKeyWord.count + $0.digits.count } ?? 0)
        let out = SecretBytes(count: length)
        out.withUnsafeMutableBytes { target in
            var index = 0
            func put(_ byte: UInt8) {
                target[index] = byte
                index += 1
            }
            if let vaultKey {
                vaultKeyWord.forEach(put)
                vaultKey.withUnsafeBytes {
                    for byte in $0 {
                        put(Hex.digits[Int(byte >> 4)])
                        put(Hex.digits[Int(byte & 15)])
                    }
                }
            }
            if let recoveryKey {
                recoveryKeyWord.forEach(put)
                recoveryKey.digits.withUnsafeBytes { $0.forEach(put) }
            }
        }
        return out
    }

    /// Decodes the words after `success`; nil if they are malformed.
    public static func decode(_ words: UnsafeRawBufferPointer) -> (vaultKey: SecretBytes?, recoveryKey: RecoveryKey?)? {
        var rest = words[...]
        var vaultKey: SecretBytes?
        var recoveryKey: RecoveryKey?
        if rest.starts(with: vaultKeyWord) {
            rest = rest.dropFirst(vaultKeyWord.count)
            let hexLength = 2 * VaultKey.length
            guard rest.count >= hexLength else { return nil }
            let key = SecretBytes(count: VaultKey.length)
            let valid = key.withUnsafeMutableBytes { target -> Bool in
                for index in 0..<VaultKey.length {
                    let high = rest[rest.startIndex + 2 * index]
                    let low = rest[rest.startIndex + 2 * index + 1]
                    guard let h = Hex.value(high), let l = Hex.value(low) else { return false }
                    target[index] = h << 4 | l
                }
                return true
            }
            guard valid else { return nil }
            vaultKey = key
            rest = rest.dropFirst(hexLength)
        }
        if rest.starts(with: recoveryKeyWord) {
            rest = rest.dropFirst(recoveryKeyWord.count)
            guard rest.count == RecoveryKey.digitCount,
                let key = try? RecoveryKey(typed: UnsafeRawBufferPointer(rebasing: rest))
            else { return nil }
            recoveryKey = key
            rest = rest.dropFirst(RecoveryKey.digitCount)
        }
        return rest.isEmpty ? (vaultKey, recoveryKey) : nil
    }
}
