// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import SecureRoomBase

/// What an object path under /org/freedesktop/secrets names (docs/DESIGN.md §14):
///
///     /org/freedesktop/secrets                              the service
///     /org/freedesktop/secrets/collection/login             the vault, also reached as
///     /org/freedesktop/secrets/aliases/{default,login}        its aliases
///     /org/freedesktop/secrets/collection/login/HEX         a secret: HEX is its row
///                                                           identity (a keyed MAC, 64 digits)
///     /org/freedesktop/secrets/session/N                    a transfer session
///     /org/freedesktop/secrets/prompt/N                     an unlock prompt
enum SecretObject: Equatable {
    case service
    case collection
    case item(id: [UInt8])
    case session(path: String)
    case prompt(path: String)
    /// A path between those (for introspection only), with its children's names.
    case node(children: [String])
    case unknown

    static let servicePath = "/org/freedesktop/secrets"
    static let collectionPath = servicePath + "/collection/login"
    static let sessionPrefix = servicePath + "/session/"
    static let promptPrefix = servicePath + "/prompt/"
    /// The aliases that name the vault.
    static let aliases = ["default", "login"]

    /// The path of the secret `id`.
    static func itemPath(_ id: [UInt8]) -> String { collectionPath + "/" + Hex.encode(id) }

    /// What `path` names.
    init(path: String) {
        let prefix = Self.collectionPath + "/"
        switch path {
        case Self.servicePath: self = .service
        case Self.collectionPath: self = .collection
        case _ where Self.aliases.contains(where: { path == Self.servicePath + "/aliases/" + $0 }): self = .collection
        case Self.servicePath + "/collection": self = .node(children: ["login"])
        case Self.servicePath + "/aliases": self = .node(children: Self.aliases)
        case _ where path.hasPrefix(prefix):
            let hex = path.dropFirst(prefix.count)
            if let id = Hex.decode(hex, count: 32) { self = .item(id: id) } else { self = .unknown }
        case _ where path.hasPrefix(Self.sessionPrefix) && Self.isNumber(path.dropFirst(Self.sessionPrefix.count)):
            self = .session(path: path)
        case _ where path.hasPrefix(Self.promptPrefix) && Self.isNumber(path.dropFirst(Self.promptPrefix.count)):
            self = .prompt(path: path)
        default: self = .unknown
        }
    }

    private static func isNumber(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}
