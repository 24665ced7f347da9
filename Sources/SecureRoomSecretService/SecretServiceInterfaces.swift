// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// The interfaces this provider serves, as the Secret Service API specifies them: the one
/// table that dispatch (`SecretService.dispatch`) and introspection (`Introspection`) read.
extension SecretService {
    private typealias Argument = BusInterface.Argument
    private typealias Method = BusInterface.Method

    /// The interfaces every object has; a call reaches them only by naming them.
    static let common: [BusInterface] = [
        BusInterface(
            name: "org.freedesktop.DBus.Introspectable",
            methods: [
                Method(name: "Introspect", input: [], output: [Argument("xml", "s")]) { try $0.introspect($1, $2, $3) }
            ]
        ),
        BusInterface(
            name: "org.freedesktop.DBus.Properties",
            methods: [
                Method(name: "Get", input: [Argument(nil, "s"), Argument(nil, "s")], output: [Argument(nil, "v")]) {
                    try $0.getProperty($1, $2, $3)
                },
                Method(name: "GetAll", input: [Argument(nil, "s")], output: [Argument(nil, "a{sv}")]) {
                    try $0.getAllProperties($1, $2, $3)
                },
                Method(name: "Set", input: [Argument(nil, "s"), Argument(nil, "s"), Argument(nil, "v")], output: []) {
                    try $0.setProperty($1, $2, $3)
                },
            ],
            signals: [
                .init(
                    name: "PropertiesChanged",
                    arguments: [Argument(nil, "s"), Argument(nil, "a{sv}"), Argument(nil, "as")])
            ]
        ),
    ]

    static let service = BusInterface(
        name: "org.freedesktop.Secret.Service",
        methods: [
            Method(
                name: "OpenSession", input: [Argument("algorithm", "s"), Argument("input", "v")],
                output: [Argument("output", "v"), Argument("result", "o")]
            ) { try $0.openSession($1, $3) },
            Method(
                name: "CreateCollection", input: [Argument("properties", "a{sv}"), Argument("alias", "s")],
                output: [Argument("collection", "o"), Argument("prompt", "o")]
            ) { try $0.createCollection($1, $3) },
            Method(
                name: "SearchItems", input: [Argument("attributes", "a{ss}")],
                output: [Argument("unlocked", "ao"), Argument("locked", "ao")]
            ) { try $0.searchItems($1, $3, split: true) },
            Method(
                name: "Unlock", input: [Argument("objects", "ao")],
                output: [Argument("unlocked", "ao"), Argument("prompt", "o")]
            ) { try $0.unlock($1, $3) },
            Method(
                name: "Lock", input: [Argument("objects", "ao")],
                output: [Argument("locked", "ao"), Argument("Prompt", "o")]
            ) { try $0.lock($1, $3) },
            Method(
                name: "GetSecrets", input: [Argument("items", "ao"), Argument("session", "o")],
                output: [Argument("secrets", "a{o(oayays)}")]
            ) { try $0.getSecrets($1, $3) },
            Method(name: "ReadAlias", input: [Argument("name", "s")], output: [Argument("collection", "o")]) {
                try $0.readAlias($1, $3)
            },
            Method(name: "SetAlias", input: [Argument("name", "s"), Argument("collection", "o")], output: []) {
                try $0.setAlias($1, $3)
            },
        ],
        properties: [.init(name: "Collections", type: "ao", writable: false)],
        signals: ["CollectionCreated", "CollectionDeleted", "CollectionChanged"].map {
            .init(name: $0, arguments: [Argument("collection", "o")])
        }
    )

    static let collection = BusInterface(
        name: "org.freedesktop.Secret.Collection",
        methods: [
            Method(name: "Delete", input: [], output: [Argument("prompt", "o")]) { _, _, _, _ in
                throw BusFailure.notSupported("the SecureRoom vault is not deleted through the Secret Service")
            },
            Method(name: "SearchItems", input: [Argument("attributes", "a{ss}")], output: [Argument("results", "ao")]) {
                try $0.searchItems($1, $3, split: false)
            },
            Method(
                name: "CreateItem",
                input: [Argument("properties", "a{sv}"), Argument("secret", "(oayays)"), Argument("replace", "b")],
                output: [Argument("item", "o"), Argument("prompt", "o")]
            ) { try $0.createItem($1, $3) },
        ],
        properties: [
            .init(name: "Items", type: "ao", writable: false), .init(name: "Label", type: "s", writable: true),
            .init(name: "Locked", type: "b", writable: false), .init(name: "Created", type: "t", writable: false),
            .init(name: "Modified", type: "t", writable: false),
        ],
        signals: ["ItemCreated", "ItemDeleted", "ItemChanged"].map {
            .init(name: $0, arguments: [Argument("item", "o")])
        }
    )

    static let item = BusInterface(
        name: "org.freedesktop.Secret.Item",
        methods: [
            Method(name: "Delete", input: [], output: [Argument("Prompt", "o")]) { try $0.deleteItem($1, $2, $3) },
            Method(name: "GetSecret", input: [Argument("session", "o")], output: [Argument("secret", "(oayays)")]) {
                try $0.getSecret($1, $2, $3)
            },
            Method(name: "SetSecret", input: [Argument("secret", "(oayays)")], output: []) {
                try $0.setSecret($1, $2, $3)
            },
        ],
        properties: [
            .init(name: "Locked", type: "b", writable: false), .init(name: "Attributes", type: "a{ss}", writable: true),
            .init(name: "Label", type: "s", writable: true), .init(name: "Created", type: "t", writable: false),
            .init(name: "Modified", type: "t", writable: false),
        ]
    )

    static let session = BusInterface(
        name: "org.freedesktop.Secret.Session",
        methods: [Method(name: "Close", input: [], output: []) { try $0.closeSession($1, $2, $3) }]
    )

    static let prompt = BusInterface(
        name: "org.freedesktop.Secret.Prompt",
        methods: [
            Method(name: "Prompt", input: [Argument("window-id", "s")], output: []) { try $0.showPrompt($1, $2, $3) },
            Method(name: "Dismiss", input: [], output: []) { try $0.dismissPrompt($1, $2, $3) },
        ],
        signals: [.init(name: "Completed", arguments: [Argument("dismissed", "b"), Argument("result", "v")])]
    )

    /// The interfaces of `object` beyond the common ones.
    static func interfaces(of object: SecretObject) -> [BusInterface] {
        switch object {
        case .service: return [service]
        case .collection: return [collection]
        case .item: return [item]
        case .session: return [session]
        case .prompt: return [prompt]
        case .node, .unknown: return []
        }
    }
}
