import Crypto
import FoundationEssentials

/// The two primitives every SecureRoom key goes through (docs/FORMAT.md §2, §7, §9):
/// HKDF-SHA256 from secret input, and ChaCha20-Poly1305 opening into a wiped buffer.
public enum SealedKeys {
    /// HKDF-SHA256(IKM = `input`, `salt`, `info`), 32 bytes.
    public static func derive(_ input: SecretBytes, salt: [UInt8] = [], info: String) -> SymmetricKey {
        input.withUnsafeBytes {
            HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: $0), salt: salt,
                                   info: Array(info.utf8), outputByteCount: 32)
        }
    }

    /// Opens `combined` (nonce || ciphertext || tag) into a `SecretBytes`; the plaintext's
    /// intermediate copy is wiped. Nil if it does not authenticate.
    public static func open(_ combined: [UInt8], using key: SymmetricKey, authenticating associatedData: [UInt8]) -> SecretBytes? {
        guard let box = try? ChaChaPoly.SealedBox(combined: combined),
              var plain = try? ChaChaPoly.open(box, using: key, authenticating: associatedData) else { return nil }
        defer { plain.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        return plain.withUnsafeBytes { SecretBytes(copying: $0) }
    }
}
