// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import SecureRoomBase

/// Reads every secret another Secret Service provider (gnome-keyring, KeePassXC) holds,
/// for `secureroom-vault import --from secret-service`, as any client would: a plain
/// session (the bus is the user's own), SearchItems with no attributes, GetSecrets for the
/// unlocked items, each item's Label and Attributes. Items the provider keeps locked are
/// reported, not unlocked: unlocking is the provider's prompt, not ours; so are items it
/// gave no secret for, and secrets over the vault's limit. No call starts a provider
/// (auto-start off), so D-Bus never activates `serve` to answer its own import.
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

    /// The provider's unlocked items, and the ones that could not be read: a name and why.
    public func readAll() throws -> (items: [Item], unreadable: [(name: String, reason: String)]) {
        let bus = try BusConnection()
        let owned = try bus.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "NameHasOwner", arguments: { try $0.append(Self.service) }, read: { try $0.readBool() })
        guard owned else {
            throw BusFailure.failed(
                "no Secret Service provider is running on this session bus (start gnome-keyring or KeePassXC's)")
        }
        guard !bus.isOwnedBySecureRoom(Self.service) else {
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
        var unreadable: [(name: String, reason: String)] = []
        if !locked.isEmpty {
            unreadable.append(
                (
                    "\(locked.count) item\(locked.count == 1 ? "" : "s")",
                    "locked in the provider: unlock there, import again"
                ))
        }
        guard !unlocked.isEmpty else { return ([], unreadable) }
        var secrets: [String: (contentType: String, value: SecretBytes)] = [:]
        var oversize = 0
        try bus.call(
            Self.service, Self.servicePath, interface: Self.serviceInterface, member: "GetSecrets",
            arguments: { message in
                try message.append(paths: unlocked)
                try message.append(session, as: "o")
            },
            read: { message in
                message.markSensitive()
                try message.enter("a", "{o(oayays)}")
                while try message.enter("e", "o(oayays)") {
                    let path = try message.readString("o")
                    try message.enter("r", "oayays")
                    _ = try message.readString("o")
                    _ = try message.readBytes(atMost: 4_096, "the parameters")
                    if let value = try? message.readBytes(atMost: limit, "a secret") {
                        secrets[path] = (try message.readString(), value)
                    } else {
                        // readBytes read the array before it refused its size: the type is next.
                        oversize += 1
                        _ = try message.readString()
                    }
                    try message.exit()
                    try message.exit()
                }
                try message.exit()
            })
        if oversize > 0 {
            unreadable.append(("\(oversize) item\(oversize == 1 ? "" : "s")", "a secret over \(limit) bytes"))
        }
        let missing = unlocked.count - secrets.count - oversize
        if missing > 0 {
            unreadable.append(("\(missing) item\(missing == 1 ? "" : "s")", "the provider gave no secret for it"))
        }
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
            }, unreadable
        )
    }
}
