// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import SecureRoomBase

/// One secret: a title, its value and when it was added and last changed (Unix seconds),
/// with what the Secret Service adds to it (docs/DESIGN.md §14): a label, attributes and
/// the value's content type. A secret added by `secureroom-vault add` has its title as its
/// label, no attributes and "text/plain".
public struct VaultSecret {
    /// The title (the lookup name, unique in the vault).
    public var title: String
    /// The value, kept in a wiped buffer.
    public var value: SecretBytes
    /// When it was added.
    public var created: Int64
    /// When its value, title, label or attributes last changed.
    public var modified: Int64
    /// The label applications show (the Secret Service's Item.Label).
    public var label: String
    /// The attributes applications look it up by (Item.Attributes).
    public var attributes: [String: String]
    /// The value's MIME type (the Secret Service's content_type).
    public var contentType: String
    /// The row's identity (the title's keyed MAC), set when read from a vault; empty otherwise.
    public internal(set) var id: [UInt8] = []

    /// A secret from its parts; the label defaults to the title.
    public init(
        title: String, value: SecretBytes, created: Int64, modified: Int64, label: String? = nil,
        attributes: [String: String] = [:], contentType: String = VaultSecret.defaultContentType
    ) {
        self.title = title
        self.value = value
        self.created = created
        self.modified = modified
        self.label = label ?? title
        self.attributes = attributes
        self.contentType = contentType
    }

    /// Largest value, in bytes (1 MiB).
    public static let maximumValueLength = VaultCipher.maximumValueLength

    /// The content type of a secret nobody described.
    public static let defaultContentType = "text/plain"
}
