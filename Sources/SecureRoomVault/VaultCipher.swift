// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import SecureRoomBase

/// The keys a vault derives from its data key (DEK) — seal, title, attribute and key-check
/// keys — and the sealing of one secret in plaintext layout 1 or 2, exactly as
/// docs/FORMAT.md §9 specifies them (the derivations, the associated data and both layouts
/// are there, with vectors in §9.1–9.2). Titles, labels and attributes are never stored in
/// clear; the associated data ties each blob to its row and its vault.
struct VaultCipher {
    private let sealKey: SecretBytes
    private let titleKey: SecretBytes
    private let attributeKey: SecretBytes
    /// The value stored in `meta` that tells the right DEK from a wrong one.
    let keyCheck: [UInt8]
    private let vaultID: [UInt8]

    /// Longest title, label and attribute name or value, in UTF-8 bytes.
    static let maximumTitleLength = 1024
    /// Largest value, in bytes.
    static let maximumValueLength = 1 << 20
    /// Most attributes on one secret.
    static let maximumAttributeCount = 64
    /// Longest content type, in bytes.
    static let maximumContentTypeLength = 128

    /// The keys of the vault `vaultID` under `dataKey`.
    init(dataKey: SecretBytes, vaultID: [UInt8]) {
        sealKey = SealedKeys.derive(dataKey, salt: vaultID, info: "secureroom/1 vault-seal")
        titleKey = SealedKeys.derive(dataKey, salt: vaultID, info: "secureroom/1 vault-title")
        attributeKey = SealedKeys.derive(dataKey, salt: vaultID, info: "secureroom/1 vault-attribute")
        keyCheck = SealedKeys.derive(dataKey, salt: vaultID, info: "secureroom/1 vault-check").withUnsafeBytes {
            Array($0)
        }
        self.vaultID = vaultID
    }

    /// The row identity of `title`.
    func titleMAC(_ title: String) -> [UInt8] {
        SealedKeys.mac(Array(title.utf8), key: titleKey)
    }

    /// The index entry of the attribute `name` = `value`.
    func attributeMAC(name: String, value: String) -> [UInt8] {
        var message: [UInt8] = []
        Self.appendField(Array(name.utf8), to: &message)
        Self.appendField(Array(value.utf8), to: &message)
        return SealedKeys.mac(message, key: attributeKey)
    }

    /// Seals one secret for the row `titleMAC`: in layout 1 when it has nothing layout 2
    /// adds (its label is its title, no attributes, text/plain), so that the vault tool's
    /// own secrets stay readable by a version that knows only layout 1; else in layout 2.
    func seal(_ secret: VaultSecret, titleMAC: [UInt8]) throws -> [UInt8] {
        let plain =
            secret.label == secret.title && secret.attributes.isEmpty
            && secret.contentType == VaultSecret.defaultContentType
        var header: [UInt8] = [plain ? 1 : 2]
        header += Self.bigEndian(UInt64(bitPattern: secret.created), bytes: 8)
        header += Self.bigEndian(UInt64(bitPattern: secret.modified), bytes: 8)
        for field in plain ? [secret.title] : [secret.title, secret.label, secret.contentType] {
            Self.appendField(Array(field.utf8), to: &header)
        }
        if !plain { header += Self.bigEndian(UInt64(secret.attributes.count), bytes: 4) }
        for (name, value) in secret.attributes.sorted(by: {
            Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8))
        }) {
            Self.appendField(Array(name.utf8), to: &header)
            Self.appendField(Array(value.utf8), to: &header)
        }
        let plaintext = SecretBytes(count: header.count + secret.value.count)
        plaintext.withUnsafeMutableBytes { out in
            out.copyBytes(from: header)
            secret.value.withUnsafeBytes { value in
                if let base = value.baseAddress, value.count > 0 {
                    out.baseAddress?.advanced(by: header.count).copyMemory(from: base, byteCount: value.count)
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
        var secret = try plain.withUnsafeBytes { bytes -> VaultSecret in
            var reader = PlaintextReader(bytes: bytes)
            let layout = try reader.integer(1)
            guard layout == 1 || layout == 2 else { throw VaultError.damaged("a secret has an unknown layout") }
            let created = Int64(bitPattern: try reader.integer(8))
            let modified = Int64(bitPattern: try reader.integer(8))
            let title = try reader.text()
            guard titleMAC == self.titleMAC(title) else {
                throw VaultError.damaged("a secret's title does not match its row")
            }
            var label = title
            var contentType = VaultSecret.defaultContentType
            var attributes: [String: String] = [:]
            if layout == 2 {
                label = try reader.text()
                contentType = try reader.text()
                let count = try reader.integer(4)
                guard count <= UInt64(Self.maximumAttributeCount) else {
                    throw VaultError.damaged("a secret has too many attributes")
                }
                var previous: [UInt8]?
                for _ in 0..<count {
                    let name = try reader.text()
                    // Names strictly ascending, as written: one canonical form, no duplicates.
                    guard previous.map({ $0.lexicographicallyPrecedes(Array(name.utf8)) }) ?? true else {
                        throw VaultError.damaged("a secret's attributes are out of order")
                    }
                    previous = Array(name.utf8)
                    // Distinct as Swift strings too (canonically equivalent names would merge).
                    guard attributes.updateValue(try reader.text(), forKey: name) == nil else {
                        throw VaultError.damaged("a secret has an attribute twice")
                    }
                }
            }
            return VaultSecret(
                title: title, value: reader.rest(), created: created, modified: modified,
                label: label, attributes: attributes, contentType: contentType)
        }
        secret.id = titleMAC
        return secret
    }

    private func associatedData(_ titleMAC: [UInt8]) -> [UInt8] {
        Array("secureroom/1 vault-secret".utf8) + vaultID + titleMAC
    }

    private static func appendField(_ field: [UInt8], to out: inout [UInt8]) {
        out += bigEndian(UInt64(field.count), bytes: 4) + field
    }

    private static func bigEndian(_ value: UInt64, bytes: Int) -> [UInt8] {
        stride(from: 8 * (bytes - 1), through: 0, by: -8).map { UInt8(truncatingIfNeeded: value >> $0) }
    }

    /// Reads an opened plaintext front to back; every overrun is `damaged`.
    private struct PlaintextReader {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        mutating func integer(_ count: Int) throws -> UInt64 {
            guard count <= bytes.count - index else { throw VaultError.damaged("a secret is truncated") }
            defer { index += count }
            return (index..<index + count).reduce(0) { $0 << 8 | UInt64(bytes[$1]) }
        }

        mutating func text() throws -> String {
            let length = try integer(4)
            guard length <= UInt64(bytes.count - index),
                let text = String(validating: bytes[index..<index + Int(length)], as: UTF8.self)
            else { throw VaultError.damaged("a secret has a malformed field") }
            index += Int(length)
            return text
        }

        func rest() -> SecretBytes {
            SecretBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[index...]))
        }
    }
}
