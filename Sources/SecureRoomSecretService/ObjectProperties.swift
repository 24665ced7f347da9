// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc
import SecureRoomBase
import SecureRoomVault

/// The D-Bus properties of one object, read when asked (org.freedesktop.DBus.Properties):
/// the service's Collections; the collection's Items, Label, Locked, Created, Modified; an
/// item's Locked, Label, Attributes, Created, Modified. A locked vault shows no items, and
/// its items show only Locked = true.
struct ObjectProperties {
    let object: SecretObject
    /// The vault file (for the collection's dates).
    let path: String
    /// The vault, opened when a property needs it; nil when locked.
    let store: () throws -> VaultStore?

    /// One property's name and value.
    struct Value {
        enum Content {
            case bool(Bool)
            case string(String)
            case time(Int64)
            case paths([String])
            case dictionary([String: String])
        }

        let name: String
        let content: Content

        /// Appends the value as a variant.
        func append(to message: BusMessage) throws {
            switch content {
            case let .bool(value): try message.container("v", "b") { try message.append(value) }
            case let .string(value): try message.container("v", "s") { try message.append(value) }
            case let .time(value): try message.container("v", "t") { try message.append(UInt64(max(0, value))) }
            case let .paths(value): try message.container("v", "ao") { try message.append(paths: value) }
            case let .dictionary(value): try message.container("v", "a{ss}") { try message.append(dictionary: value) }
            }
        }
    }

    /// The interface the properties belong to.
    var interface: String {
        switch object {
        case .service: return "org.freedesktop.Secret.Service"
        case .collection: return "org.freedesktop.Secret.Collection"
        case .item: return "org.freedesktop.Secret.Item"
        case .session: return "org.freedesktop.Secret.Session"
        case .prompt: return "org.freedesktop.Secret.Prompt"
        case .node, .unknown: return ""
        }
    }

    /// Every property of the object, with its current value.
    func values() throws -> [Value] {
        switch object {
        case .service:
            return [Value(name: "Collections", content: .paths([SecretObject.collectionPath]))]
        case .collection:
            let store = try store()
            let items = try store?.ids().map(SecretObject.itemPath) ?? []
            let changed = fileTime()
            return [
                Value(name: "Items", content: .paths(items)), Value(name: "Label", content: .string("Login")),
                Value(name: "Locked", content: .bool(store == nil)), Value(name: "Created", content: .time(changed)),
                Value(name: "Modified", content: .time(changed)),
            ]
        case let .item(id):
            guard let store = try store() else {
                return [
                    Value(name: "Locked", content: .bool(true)), Value(name: "Label", content: .string("")),
                    Value(name: "Attributes", content: .dictionary([:])), Value(name: "Created", content: .time(0)),
                    Value(name: "Modified", content: .time(0)),
                ]
            }
            let secret = try store.secret(id: id)
            return [
                Value(name: "Locked", content: .bool(false)), Value(name: "Label", content: .string(secret.label)),
                Value(name: "Attributes", content: .dictionary(secret.attributes)),
                Value(name: "Created", content: .time(secret.created)),
                Value(name: "Modified", content: .time(secret.modified)),
            ]
        case .session, .prompt:
            return []
        case .node, .unknown:
            throw BusFailure.noSuchObject("no object here")
        }
    }

    /// The vault file's last change (Unix seconds), 0 if it cannot be read.
    private func fileTime() -> Int64 {
        var status = stat()
        guard lstat(path, &status) == 0 else { return 0 }
        return Int64(status.st_mtim.tv_sec)
    }
}
