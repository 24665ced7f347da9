// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import SecureRoomBase

/// Reads every secret another Secret Service provider (gnome-keyring, KeePassXC) holds,
/// for `secureroom-vault import --from secret-service`, as any client would: a plain
/// session (the bus is the user's own), SearchItems with no attributes, GetSecrets for the
/// unlocked items, each item's Label and Attributes. Items the provider keeps locked are
/// counted, not unlocked: unlocking is the provider's prompt, not ours.
public struct ProviderReader {
    /// One item as the provider holds it.
    public struct Item {
        /// Its label.
        public let label: String
        /// Its attributes.
        public let attributes: [String: String]
        /// Its content type.
        public let contentType: String
        /// Its secret, in a wiped buffer.
        public let value: SecretBytes
    }

    static let service = "org.freedesktop.secrets"
    static let servicePath = "/org/freedesktop/secrets"
    static let serviceInterface = "org.freedesktop.Secret.Service"

    /// The largest secret read.
    let limit: Int

    /// A reader that refuses secrets over `limit` bytes.
    public init(limit: Int) { self.limit = limit }

    /// The provider's unlocked items, and how many it keeps locked.
    public func readAll() throws -> (items: [Item], locked: Int) {
        let bus = try BusConnection()
        let owned = try bus.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "NameHasOwner", arguments: { try $0.append(Self.service) }, read: { try $0.readBool() })
        guard owned else {
            throw BusFailure.failed(
                "no Secret Service provider is running on this session bus (start gnome-keyring or KeePassXC's)")
        }
        guard !bus.isOwnedByThisProgram(Self.service) else {
            throw BusFailure.failed(
                "secureroom-vault serve is the Secret Service now: stop it (systemctl --user stop "
                    + "secureroom-secrets) and start the provider to import from, then import again")
        }
        let session = try bus.call(
            Self.service, Self.servicePath, interface: Self.serviceInterface, member: "OpenSession",
            arguments: { message in
                try message.append("plain")
                try message.container("v", "s") { try message.append("") }
            },
            read: { message -> String in
                try message.skip("v")
                return try message.readString("o")
            })
        defer {
            _ = try? bus.call(
                Self.service, session, interface: "org.freedesktop.Secret.Session", member: "Close", read: { _ in })
        }
        let (unlocked, locked) = try bus.call(
            Self.service, Self.servicePath, interface: Self.serviceInterface, member: "SearchItems",
            arguments: { try $0.append(dictionary: [:]) },
            read: { (try $0.readPaths(), try $0.readPaths()) })
        guard !unlocked.isEmpty else { return ([], locked.count) }
        var secrets: [String: (contentType: String, value: SecretBytes)] = [:]
        try bus.call(
            Self.service, Self.servicePath, interface: Self.serviceInterface, member: "GetSecrets",
            arguments: { message in
                try message.append(paths: unlocked)
                try message.append(session, as: "o")
            },
            read: { message in
                try message.enter("a", "{o(oayays)}")
                while try message.enter("e", "o(oayays)") {
                    let path = try message.readString("o")
                    try message.enter("r", "oayays")
                    _ = try message.readString("o")
                    _ = try message.readBytes(atMost: 4_096, "the parameters")
                    let value = try message.readBytes(atMost: limit, "a secret")
                    secrets[path] = (try message.readString(), value)
                    try message.exit()
                    try message.exit()
                }
                try message.exit()
            })
        return (
            try unlocked.compactMap { path -> Item? in
                guard let secret = secrets[path] else { return nil }
                var label = ""
                var attributes: [String: String] = [:]
                try bus.call(
                    Self.service, path, interface: "org.freedesktop.DBus.Properties", member: "GetAll",
                    arguments: { try $0.append("org.freedesktop.Secret.Item") },
                    read: { message in
                        try message.readPropertyDictionary { key in
                            switch key {
                            case "Label":
                                try message.enter("v", "s")
                                label = try message.readString()
                                try message.exit()
                            case "Attributes":
                                try message.enter("v", "a{ss}")
                                attributes = try message.readStringDictionary()
                                try message.exit()
                            default: return false
                            }
                            return true
                        }
                    })
                return Item(label: label, attributes: attributes, contentType: secret.contentType, value: secret.value)
            }, locked.count
        )
    }
}
