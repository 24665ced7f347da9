import SecureRoomCore

/// The keys a vault derives from its data key (DEK), and the sealing of one secret
/// (docs/FORMAT.md §9):
///
///     seal key  = HKDF-SHA256(DEK, salt = vault id, info = "secureroom/1 vault-seal", 32)
///     title key = HKDF-SHA256(DEK, salt = vault id, info = "secureroom/1 vault-title", 32)
///     key check = HKDF-SHA256(DEK, salt = vault id, info = "secureroom/1 vault-check", 32)
///     title mac = HMAC-SHA256(title key, title)                 (the row's identity)
///     sealed    = ChaCha20-Poly1305(seal key, random nonce, plaintext,
///                   ad = "secureroom/1 vault-secret" || vault id || title mac)
///     plaintext = 01 || created (i64 BE) || modified (i64 BE) || title length (u32 BE)
///                 || title || value
///
/// Titles are never stored in clear; the associated data ties each blob to its row and
/// its vault, so a blob moved to another row or another vault does not open.
struct VaultCipher {
    private let sealKey: SecretBytes
    private let titleKey: SecretBytes
    /// The value stored in `meta` that tells the right DEK from a wrong one.
    let keyCheck: [UInt8]
    private let vaultID: [UInt8]

    /// Longest title, in UTF-8 bytes.
    static let maximumTitleLength = 1024
    /// Largest value, in bytes.
    static let maximumValueLength = 1 << 20
    private static let headerLength = 1 + 8 + 8 + 4

    /// The keys of the vault `vaultID` under `dataKey`.
    init(dataKey: SecretBytes, vaultID: [UInt8]) {
        sealKey = SealedKeys.derive(dataKey, salt: vaultID, info: "secureroom/1 vault-seal")
        titleKey = SealedKeys.derive(dataKey, salt: vaultID, info: "secureroom/1 vault-title")
        keyCheck = SealedKeys.derive(dataKey, salt: vaultID, info: "secureroom/1 vault-check").withUnsafeBytes { Array($0) }
        self.vaultID = vaultID
    }

    /// The row identity of `title`.
    func titleMAC(_ title: String) -> [UInt8] {
        SealedKeys.mac(Array(title.utf8), key: titleKey)
    }

    /// Seals one secret for the row `titleMAC`.
    func seal(_ secret: VaultSecret, titleMAC: [UInt8]) throws -> [UInt8] {
        let title = Array(secret.title.utf8)
        let plaintext = SecretBytes(count: Self.headerLength + title.count + secret.value.count)
        plaintext.withUnsafeMutableBytes { out in
            var index = 0
            func put(_ value: UInt64, bytes: Int) {
                for shift in stride(from: 8 * (bytes - 1), through: 0, by: -8) { out[index] = UInt8(truncatingIfNeeded: value >> shift); index += 1 }
            }
            out[index] = 1; index += 1
            put(UInt64(bitPattern: secret.created), bytes: 8)
            put(UInt64(bitPattern: secret.modified), bytes: 8)
            put(UInt64(title.count), bytes: 4)
            for byte in title { out[index] = byte; index += 1 }
            secret.value.withUnsafeBytes { value in
                if let base = value.baseAddress, value.count > 0 {
                    out.baseAddress?.advanced(by: index).copyMemory(from: base, byteCount: value.count)
                }
            }
        }
        return try plaintext.withUnsafeBytes {
            try SealedKeys.seal($0, key: sealKey, authenticating: associatedData(titleMAC))
        }
    }

    /// Opens the blob of the row `titleMAC`; throws `VaultError.damaged` if it was altered,
    /// belongs to another row or vault, or is not a secret.
    func open(_ sealed: [UInt8], titleMAC: [UInt8]) throws -> VaultSecret {
        guard let plain = SealedKeys.open(sealed, key: sealKey, authenticating: associatedData(titleMAC)) else {
            throw VaultError.damaged("a secret does not open with this vault's key (altered or moved)")
        }
        return try plain.withUnsafeBytes { bytes -> VaultSecret in
            guard bytes.count >= Self.headerLength, bytes[0] == 1 else { throw VaultError.damaged("a secret has an unknown layout") }
            func read(_ start: Int, _ count: Int) -> UInt64 {
                (start..<start + count).reduce(0) { $0 << 8 | UInt64(bytes[$1]) }
            }
            let titleLength = Int(read(17, 4))
            guard titleLength <= bytes.count - Self.headerLength,
                  let title = String(validating: bytes[Self.headerLength..<Self.headerLength + titleLength], as: UTF8.self),
                  titleMAC == self.titleMAC(title)
            else { throw VaultError.damaged("a secret's title does not match its row") }
            let value = SecretBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[(Self.headerLength + titleLength)...]))
            return VaultSecret(title: title, value: value, created: Int64(bitPattern: read(1, 8)),
                               modified: Int64(bitPattern: read(9, 8)))
        }
    }

    private func associatedData(_ titleMAC: [UInt8]) -> [UInt8] {
        Array("secureroom/1 vault-secret".utf8) + vaultID + titleMAC
    }
}

/// One secret: a title, its value and when it was added and last changed (Unix seconds).
public struct VaultSecret {
    /// The title (the lookup name).
    public var title: String
    /// The value, kept in a wiped buffer.
    public var value: SecretBytes
    /// When it was added.
    public var created: Int64
    /// When its value or title last changed.
    public var modified: Int64

    /// A secret from its parts.
    public init(title: String, value: SecretBytes, created: Int64, modified: Int64) {
        self.title = title
        self.value = value
        self.created = created
        self.modified = modified
    }
}
