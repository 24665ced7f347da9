// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc
import SecureRoomBase

/// A user's vault: one SQLite file (docs/FORMAT.md §9), owned by the user, mode 0600,
/// written in WAL mode so that several processes can add secrets at once (each write is
/// one IMMEDIATE transaction; a busy writer is waited for, by default up to 30 s).
///
///     meta(name TEXT PRIMARY KEY, value BLOB)          format = "1", vault-id, key-check
///     secret(title_mac BLOB PRIMARY KEY, sealed BLOB)  one row per secret
///     attribute(mac BLOB, title_mac BLOB)              one row per attribute of a secret
///                                                      (its keyed MAC: searchable, not readable)
public final class VaultStore {
    /// The largest value a secret may have, in bytes.
    public static let maximumValueLength = VaultCipher.maximumValueLength

    /// The vault file.
    public let path: String
    private let database: SQLiteConnection
    private let cipher: VaultCipher
    private let now: () -> Int64

    /// Opens (or, with `create`, creates) the vault at `path` with `dataKey`; throws
    /// `wrongKey` if the vault was sealed with another key.
    /// `busyTimeout`: how long each statement waits for another writer, in milliseconds.
    public init(
        path: String, dataKey: SecretBytes, create: Bool, busyTimeout: Int32 = 30_000,
        now: @escaping () -> Int64 = { Int64(time(nil)) }
    ) throws {
        self.path = path
        self.now = now
        try VaultLocation.checkFile(path, mustExist: !create)
        // The file is made here, 0600 from birth and never through a symlink; SQLite gives
        // its -wal and -shm files the database file's mode.
        if create { try VaultLocation.createFile(path) }
        // The journal mode is not configured here: WAL is a property of the file, set once
        // when the vault is initialised, so an ordinary open neither writes nor takes the
        // write lock.
        do {
            let database = try SQLiteConnection(path: path, busyTimeoutMilliseconds: busyTimeout)
            self.database = database
            let meta =
                try database.transaction(immediate: false) { try Self.meta(database) }
                ?? (try Self.initialize(database, dataKey: dataKey))
            cipher = VaultCipher(dataKey: dataKey, vaultID: meta.vaultID)
            let check = cipher.keyCheck.withUnsafeBytes { SecretBytes(copying: $0) }
            guard meta.keyCheck.withUnsafeBytes({ check.constantTimeEquals($0) }) else {
                throw VaultError.wrongKey(path: path)
            }
            // A vault made before the attribute index gains it once, by its key's holder.
            if !meta.indexesAttributes {
                try database.transaction(immediate: true) { _ = try database.run(Self.createAttributeTable) }
            }
        } catch let error as SQLiteError {
            throw Self.translate(error, path: path)
        }
    }

    /// The vault's identity and key check, as stored in `meta`, and whether the file has
    /// the `attribute` table yet.
    private struct Meta {
        let vaultID: [UInt8]
        let keyCheck: [UInt8]
        let indexesAttributes: Bool
    }

    /// The stored meta, or nil for a file not yet initialised (new, or created by a
    /// process that died before its first commit).
    private static func meta(_ database: SQLiteConnection) throws -> Meta? {
        var tables: Set<String> = []
        try database.forEachRow("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('meta', 'attribute')")
        { row in
            tables.insert(String(decoding: row.blob(at: 0), as: UTF8.self))
        }
        guard tables.contains("meta") else { return nil }
        var values: [String: [UInt8]] = [:]
        try database.forEachRow("SELECT name, value FROM meta") { row in
            values[String(decoding: row.blob(at: 0), as: UTF8.self)] = row.blob(at: 1)
        }
        guard let id = values["vault-id"] else { return nil }
        guard values["format"] == Array("1".utf8) else { throw VaultError.damaged("unknown vault format") }
        guard id.count == 16 else { throw VaultError.damaged("malformed vault id") }
        return Meta(vaultID: id, keyCheck: values["key-check"] ?? [], indexesAttributes: tables.contains("attribute"))
    }

    private static let createAttributeTable = """
        CREATE TABLE IF NOT EXISTS attribute (mac BLOB NOT NULL, title_mac BLOB NOT NULL,
                                              PRIMARY KEY (mac, title_mac)) WITHOUT ROWID
        """

    /// Sets WAL mode and writes the tables and meta, in one IMMEDIATE transaction, unless
    /// another process did so first (then its meta is returned).
    private static func initialize(_ database: SQLiteConnection, dataKey: SecretBytes) throws -> Meta {
        _ = try database.firstBlob("PRAGMA journal_mode = WAL")
        return try database.transaction(immediate: true) {
            if let existing = try meta(database) { return existing }
            try database.run(
                "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL) WITHOUT ROWID")
            try database.run(
                "CREATE TABLE IF NOT EXISTS secret (title_mac BLOB PRIMARY KEY NOT NULL, sealed BLOB NOT NULL) "
                    + "WITHOUT ROWID"
            )
            try database.run(createAttributeTable)
            let vaultID = try SecretBytes.random(count: 16).withUnsafeBytes { Array($0) }
            let check = VaultCipher(dataKey: dataKey, vaultID: vaultID).keyCheck
            try database.run(
                "INSERT INTO meta (name, value) VALUES ('format', CAST('1' AS BLOB)), ('vault-id', ?1), "
                    + "('key-check', ?2)",
                [vaultID, check])
            return Meta(vaultID: vaultID, keyCheck: check, indexesAttributes: true)
        }
    }

    /// A secret to add: its title and value, and what a Secret Service client sees of it.
    /// A nil label, attributes or content type means the title, none and `text/plain`
    /// for a new secret, and the old secret's own when one is replaced.
    public struct NewSecret {
        /// The title (the secret's name in the vault).
        public var title: String
        /// The value.
        public var value: SecretBytes
        /// The label, or nil.
        public var label: String?
        /// The attributes, or nil.
        public var attributes: [String: String]?
        /// The content type, or nil.
        public var contentType: String?

        /// A secret titled `title` holding `value`.
        public init(
            title: String, value: SecretBytes, label: String? = nil, attributes: [String: String]? = nil,
            contentType: String? = nil
        ) {
            (self.title, self.value, self.label, self.attributes, self.contentType) = (
                title, value, label, attributes, contentType
            )
        }
    }

    /// Adds a secret; with `replace`, overwrites one of the same title (keeping its
    /// creation date, label, attributes and content type), otherwise that is `exists`.
    public func add(title: String, value: SecretBytes, replace: Bool) throws {
        try add([NewSecret(title: title, value: value)], replace: replace)
    }

    /// Adds several secrets in one transaction: all of them or, on any error, none.
    /// `replace` is as for a single `add`; what a `NewSecret` gives replaces the old
    /// secret's. A title given twice is refused whatever `replace` says: one of the two
    /// values would be lost without a word.
    public func add(_ secrets: [NewSecret], replace: Bool) throws {
        var seen = Set<[UInt8]>()
        for new in secrets {
            try Self.validate(new)
            guard seen.insert(Array(new.title.utf8)).inserted else {
                throw VaultError.invalid("the title \(TitleText.escaped(new.title)) is given twice; nothing was stored")
            }
        }
        try write {
            let now = now()
            for new in secrets {
                let mac = cipher.titleMAC(new.title)
                var secret = VaultSecret(title: new.title, value: new.value, created: now, modified: now)
                if let old = try openedRow(mac) {
                    guard replace else { throw VaultError.exists(title: new.title) }
                    (secret.created, secret.label, secret.attributes, secret.contentType) = (
                        old.created, old.label, old.attributes, old.contentType
                    )
                }
                if let label = new.label { secret.label = label }
                if let attributes = new.attributes { secret.attributes = attributes }
                if let contentType = new.contentType { secret.contentType = contentType }
                try put(secret, at: mac)
            }
        }
    }

    /// The secret whose row identity is `id` (`VaultSecret.id`).
    public func secret(id: [UInt8]) throws -> VaultSecret {
        guard let secret = try read({ try openedRow(id) }) else { throw VaultError.noSuchItem }
        return secret
    }

    /// The row identities of every secret, in the order of the index (no secret is opened).
    public func ids() throws -> [[UInt8]] {
        try read {
            var ids: [[UInt8]] = []
            try database.forEachRow("SELECT title_mac FROM secret") { ids.append($0.blob(at: 0)) }
            return ids
        }
    }

    /// The secrets that have every attribute in `attributes` (all secrets for none), found
    /// through the keyed index and checked once opened.
    public func search(_ attributes: [String: String]) throws -> [VaultSecret] {
        try read { try matching(attributes) }
    }

    /// Stores a secret described by a Secret Service client: a new row titled after its
    /// label (made unique with " (2)", " (3)", …), or, with `replace`, the row whose
    /// attributes are exactly `attributes` overwritten (its title and creation date kept).
    /// Returns the secret as stored and whether it replaced one.
    public func create(
        label: String, attributes: [String: String], contentType: String, value: SecretBytes,
        replace: Bool
    ) throws -> (secret: VaultSecret, replaced: Bool) {
        try Self.validate(label: label, attributes: attributes, contentType: contentType)
        try Self.validate(value: value)
        return try write {
            let now = now()
            // No attributes name no item: an empty set would match every secret added by the CLI.
            if replace, !attributes.isEmpty,
                var existing = try matching(attributes).first(where: { $0.attributes == attributes })
            {
                (existing.label, existing.contentType, existing.value, existing.modified) = (
                    label, contentType, value, now
                )
                try put(existing, at: existing.id)
                return (existing, true)
            }
            let title = try uniqueTitle(for: label)
            var secret = VaultSecret(
                title: title, value: value, created: now, modified: now, label: label,
                attributes: attributes, contentType: contentType)
            secret.id = cipher.titleMAC(title)
            try put(secret, at: secret.id)
            return (secret, false)
        }
    }

    /// Within a write transaction: a free title for a secret labelled `label` — the label,
    /// then "label (2)" … "label (100)", then "label (8 random hex digits)"; a label is
    /// shortened at a character boundary so the suffix fits the title's limit.
    private func uniqueTitle(for label: String) throws -> String {
        var base = label.isEmpty ? "untitled" : label
        if try sealedRow(cipher.titleMAC(base)) == nil { return base }
        let room = VaultCipher.maximumTitleLength - " (ffffffff)".utf8.count
        while base.utf8.count > room { base.removeLast() }
        for number in 2...100 {
            let title = "\(base) (\(number))"
            if try sealedRow(cipher.titleMAC(title)) == nil { return title }
        }
        for _ in 0..<8 {
            let suffix = try SecretBytes.random(count: 4).withUnsafeBytes { Hex.encode($0) }
            let title = "\(base) (\(suffix))"
            if try sealedRow(cipher.titleMAC(title)) == nil { return title }
        }
        throw VaultError.invalid("no free title for this label")
    }

    /// Changes what is given of the secret `id` (label, attributes, value and its content
    /// type).
    public func update(
        id: [UInt8], label: String? = nil, attributes: [String: String]? = nil,
        value: (SecretBytes, contentType: String)? = nil
    ) throws {
        if let value { try Self.validate(value: value.0) }
        try write {
            guard var secret = try openedRow(id) else { throw VaultError.noSuchItem }
            if let label { secret.label = label }
            if let attributes { secret.attributes = attributes }
            if let value { (secret.value, secret.contentType) = (value.0, value.contentType) }
            try Self.validate(label: secret.label, attributes: secret.attributes, contentType: secret.contentType)
            secret.modified = now()
            try put(secret, at: id)
        }
    }

    /// Removes the secret `id`.
    public func remove(id: [UInt8]) throws {
        try write { guard try deleteRow(id) else { throw VaultError.noSuchItem } }
    }

    /// Within a transaction: the secrets having every attribute of `attributes`. Every
    /// asked attribute narrows the candidates in the index, whatever the order; each
    /// candidate is checked once opened.
    private func matching(_ attributes: [String: String]) throws -> [VaultSecret] {
        let macs = attributes.map { cipher.attributeMAC(name: $0.key, value: $0.value) }
        var query = "SELECT title_mac, sealed FROM secret"
        if !macs.isEmpty {
            query +=
                " WHERE title_mac IN ("
                + macs.indices.map { "SELECT title_mac FROM attribute WHERE mac = ?\($0 + 1)" }.joined(
                    separator: " INTERSECT ") + ")"
        }
        var secrets: [VaultSecret] = []
        try database.forEachRow(query, macs) { row in
            let secret = try cipher.open(row.blob(at: 1), titleMAC: row.blob(at: 0))
            if attributes.allSatisfy({ secret.attributes[$0.key] == $0.value }) { secrets.append(secret) }
        }
        return secrets
    }

    /// Within a write transaction: seals `secret` into the row `mac` and rewrites its
    /// attribute index.
    private func put(_ secret: VaultSecret, at mac: [UInt8]) throws {
        try database.run(
            "INSERT OR REPLACE INTO secret (title_mac, sealed) VALUES (?1, ?2)",
            [mac, try cipher.seal(secret, titleMAC: mac)])
        try database.run("DELETE FROM attribute WHERE title_mac = ?1", [mac])
        for (name, value) in secret.attributes {
            try database.run(
                "INSERT OR IGNORE INTO attribute (mac, title_mac) VALUES (?1, ?2)",
                [cipher.attributeMAC(name: name, value: value), mac])
        }
    }

    /// The secret titled `title`.
    public func secret(titled title: String) throws -> VaultSecret {
        guard let secret = try read({ try openedRow(cipher.titleMAC(title)) }) else {
            throw VaultError.notFound(title: title)
        }
        return secret
    }

    /// Every secret, sorted by title. Each one is opened and checked.
    public func secrets() throws -> [VaultSecret] {
        try search([:]).sorted { $0.title < $1.title }
    }

    /// The number of secrets.
    public func count() throws -> Int {
        try read { Int(try database.firstInteger("SELECT count(*) FROM secret") ?? 0) }
    }

    /// Removes the secret titled `title`.
    public func remove(title: String) throws {
        try write { guard try deleteRow(cipher.titleMAC(title)) else { throw VaultError.notFound(title: title) } }
    }

    /// Gives the secret titled `old` the title `new` (re-sealed for its new row).
    public func rename(_ old: String, to new: String) throws {
        try Self.validate(title: new)
        let (oldMAC, newMAC) = (cipher.titleMAC(old), cipher.titleMAC(new))
        try write {
            guard var secret = try openedRow(oldMAC) else { throw VaultError.notFound(title: old) }
            let taken = try sealedRow(newMAC) != nil
            guard oldMAC == newMAC || !taken else { throw VaultError.exists(title: new) }
            if secret.label == secret.title { secret.label = new }
            secret.title = new
            secret.modified = now()
            try deleteRow(oldMAC)
            try put(secret, at: newMAC)
        }
    }

    /// Throws `invalid` unless `new`'s title, value, label, attributes and content type
    /// are within the vault's limits (what `add` would refuse).
    public static func validate(_ new: NewSecret) throws {
        try validate(title: new.title)
        try validate(value: new.value)
        try validate(
            label: new.label ?? new.title, attributes: new.attributes ?? [:],
            contentType: new.contentType ?? VaultSecret.defaultContentType)
    }

    private static func validate(title: String) throws {
        let length = title.utf8.count
        guard length > 0, length <= VaultCipher.maximumTitleLength else {
            throw VaultError.invalid(
                "a title is 1 to \(VaultCipher.maximumTitleLength) bytes of UTF-8 (this one is \(length))")
        }
        guard !title.utf8.contains(0) else { throw VaultError.invalid("a title cannot contain a NUL byte") }
    }

    private static func validate(value: SecretBytes) throws {
        guard value.count <= VaultCipher.maximumValueLength else {
            throw VaultError.invalid(
                "a value is at most \(VaultCipher.maximumValueLength) bytes (this one is \(value.count))")
        }
    }

    private static func validate(label: String, attributes: [String: String], contentType: String) throws {
        let limit = VaultCipher.maximumTitleLength
        guard label.utf8.count <= limit else {
            throw VaultError.invalid("a label is at most \(limit) bytes (this one is \(label.utf8.count))")
        }
        guard attributes.count <= VaultCipher.maximumAttributeCount else {
            throw VaultError.invalid(
                "a secret has at most \(VaultCipher.maximumAttributeCount) attributes (this one has "
                    + "\(attributes.count))"
            )
        }
        for (name, value) in attributes where name.isEmpty || name.utf8.count > limit || value.utf8.count > limit {
            throw VaultError.invalid(
                "an attribute's name is 1 to \(limit) bytes and its value at most \(limit) "
                    + "(\(VaultError.quoted(name)) is not)"
            )
        }
        guard contentType.utf8.count <= VaultCipher.maximumContentTypeLength else {
            throw VaultError.invalid("a content type is at most \(VaultCipher.maximumContentTypeLength) bytes")
        }
    }

    /// The sealed row of the secret whose title has the MAC `mac`, if any.
    private func sealedRow(_ mac: [UInt8]) throws -> [UInt8]? {
        try database.firstBlob("SELECT sealed FROM secret WHERE title_mac = ?1", [mac])
    }

    /// Within a transaction: the secret in the row `mac`, opened, if there is one.
    private func openedRow(_ mac: [UInt8]) throws -> VaultSecret? {
        try sealedRow(mac).map { try cipher.open($0, titleMAC: mac) }
    }

    /// Within a write transaction: removes the row `mac` and its attribute index; whether
    /// there was one.
    @discardableResult
    private func deleteRow(_ mac: [UInt8]) throws -> Bool {
        guard try database.run("DELETE FROM secret WHERE title_mac = ?1", [mac]) == 1 else { return false }
        try database.run("DELETE FROM attribute WHERE title_mac = ?1", [mac])
        return true
    }

    /// Runs `body` in a read transaction: one consistent snapshot of the vault.
    private func read<T>(_ body: () throws -> T) throws -> T { try transaction(immediate: false, body) }

    /// Runs `body` in an IMMEDIATE transaction: all its changes or none; returns its result.
    @discardableResult
    private func write<T>(_ body: () throws -> T) throws -> T { try transaction(immediate: true, body) }

    /// `body` in a transaction, SQLite's errors translated.
    private func transaction<T>(immediate: Bool, _ body: () throws -> T) throws -> T {
        do { return try database.transaction(immediate: immediate, body) } catch let error as SQLiteError {
            throw Self.translate(error, path: path)
        }
    }

    /// SQLite's errors in the vault's words: a damaged file is `damaged`, not a crash.
    private static func translate(_ error: SQLiteError, path: String) -> VaultError {
        error.isDamage ? .damaged("\(path): \(error.message)") : .database(path: path, message: error.message)
    }
}
