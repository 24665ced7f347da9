// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomSystem
import FoundationEssentials
import SecureRoomCore
import SecureRoomVault

/// One secret as `export` writes it and `import` reads it: the title, the value (`value`
/// when it is UTF-8, `value_base64` otherwise), the label, the content type and the
/// attributes, so that a round trip loses nothing a Secret Service client relies on.
struct ExportedSecret: Codable {
    var title: String
    var value: String?
    var valueBase64: String?
    var label: String?
    var contentType: String?
    var attributes: [String: String]?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case title, value, label, attributes
        case valueBase64 = "value_base64"
        case contentType = "content_type"
    }

    /// Any key, to find the ones this format does not have.
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// `secret` as written by `export`.
    init(_ secret: VaultSecret) {
        title = secret.title
        let bytes = secret.value.withUnsafeBytes { Array($0) }
        if let text = String(validating: bytes, as: UTF8.self) {
            value = text
        } else {
            valueBase64 = Data(bytes).base64EncodedString()
        }
        label = secret.label
        contentType = secret.contentType
        attributes = secret.attributes
    }

    init(from decoder: any Decoder) throws {
        let unknown = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
            .filter { CodingKeys(rawValue: $0) == nil }
        if let key = unknown.first {
            throw VaultError.invalid(
                "unknown key \"\(key)\" in the input; nothing was stored (import keeps title, value or "
                    + "value_base64, label, content_type, attributes)")
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decode(String.self, forKey: .title)
        value = try container.decodeIfPresent(String.self, forKey: .value)
        valueBase64 = try container.decodeIfPresent(String.self, forKey: .valueBase64)
        label = try container.decodeIfPresent(String.self, forKey: .label)
        contentType = try container.decodeIfPresent(String.self, forKey: .contentType)
        attributes = try container.decodeIfPresent([String: String].self, forKey: .attributes)
    }

    /// The secret to store; entry `number` (from 1) names it in errors.
    func newSecret(number: Int) throws -> VaultStore.NewSecret {
        var bytes: [UInt8]
        switch (value, valueBase64) {
        case (let text?, nil): bytes = Array(text.utf8)
        case (nil, let encoded?):
            guard let data = Data(base64Encoded: encoded) else {
                throw VaultError.invalid("entry \(number): value_base64 is not base64; nothing was stored")
            }
            bytes = Array(data)
        default:
            throw VaultError.invalid("entry \(number) needs exactly one of value and value_base64; nothing was stored")
        }
        defer { bytes.withUnsafeMutableBytes { sr_explicit_bzero($0.baseAddress, $0.count) } }
        return VaultStore.NewSecret(
            title: title, value: bytes.withUnsafeBytes { SecretBytes(copying: $0) }, label: label,
            attributes: attributes, contentType: contentType)
    }
}
