import Glibc
import SecureRoomCore

/// A user's vault: one SQLite file (docs/FORMAT.md §9), owned by the user, mode 0600,
/// written in WAL mode so that several processes can add secrets at once (each write is
/// one IMMEDIATE transaction; a busy writer is waited for, up to 30 s).
///
///     meta(name TEXT PRIMARY KEY, value BLOB)          format = "1", vault-id, key-check
///     secret(title_mac BLOB PRIMARY KEY, sealed BLOB)  one row per secret
public final class VaultStore {
    /// The vault file.
    public let path: String
    private let database: SQLiteConnection
    private let cipher: VaultCipher
    private let now: () -> Int64

    /// Opens (or, with `create`, creates) the vault at `path` with `dataKey`; throws
    /// `wrongKey` if the vault was sealed with another key.
    public init(path: String, dataKey: SecretBytes, create: Bool, now: @escaping () -> Int64 = { Int64(time(nil)) }) throws {
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
            let database = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 30_000)
            self.database = database
            let meta = try database.transaction(immediate: false) { try Self.meta(database) }
                ?? (try Self.initialize(database, dataKey: dataKey))
            cipher = VaultCipher(dataKey: dataKey, vaultID: meta.vaultID)
            let check = cipher.keyCheck.withUnsafeBytes { SecretBytes(copying: $0) }
            guard meta.keyCheck.withUnsafeBytes({ check.constantTimeEquals($0) }) else { throw VaultError.wrongKey(path: path) }
        } catch let error as SQLiteError {
            throw Self.translate(error, path: path)
        }
    }

    /// The vault's identity and key check, as stored in `meta`.
    private struct Meta {
        let vaultID: [UInt8]
        let keyCheck: [UInt8]
    }

    /// The stored meta, or nil for a file not yet initialised (new, or created by a
    /// process that died before its first commit).
    private static func meta(_ database: SQLiteConnection) throws -> Meta? {
        guard try database.firstInteger("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'") == 1
        else { return nil }
        var values: [String: [UInt8]] = [:]
        try database.forEachRow("SELECT name, value FROM meta") { row in
            values[String(decoding: row.blob(at: 0), as: UTF8.self)] = row.blob(at: 1)
        }
        guard let id = values["vault-id"] else { return nil }
        guard values["format"] == Array("1".utf8) else { throw VaultError.damaged("unknown vault format") }
        guard id.count == 16 else { throw VaultError.damaged("malformed vault id") }
        return Meta(vaultID: id, keyCheck: values["key-check"] ?? [])
    }

    /// Sets WAL mode and writes the tables and meta, in one IMMEDIATE transaction, unless
    /// another process did so first (then its meta is returned).
    private static func initialize(_ database: SQLiteConnection, dataKey: SecretBytes) throws -> Meta {
        _ = try database.firstBlob("PRAGMA journal_mode = WAL")
        return try database.transaction(immediate: true) {
            if let existing = try meta(database) { return existing }
            try database.run("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL) WITHOUT ROWID")
            try database.run("CREATE TABLE IF NOT EXISTS secret (title_mac BLOB PRIMARY KEY NOT NULL, sealed BLOB NOT NULL) WITHOUT ROWID")
            let vaultID = try SecretBytes.random(count: 16).withUnsafeBytes { Array($0) }
            let check = VaultCipher(dataKey: dataKey, vaultID: vaultID).keyCheck
            try database.run("INSERT INTO meta (name, value) VALUES ('format', CAST('1' AS BLOB)), ('vault-id', ?1), ('key-check', ?2)",
                             [vaultID, check])
            return Meta(vaultID: vaultID, keyCheck: check)
        }
    }

    /// Adds a secret; with `replace`, overwrites one of the same title (keeping its
    /// creation date), otherwise that is `exists`.
    public func add(title: String, value: SecretBytes, replace: Bool) throws {
        try add([(title, value)], replace: replace)
    }

    /// Adds several secrets in one transaction: all of them or, on any error, none.
    /// `replace` is as for a single `add`.
    /// A title given twice is refused whatever `replace` says: one of the two values
    /// would be lost without a word.
    public func add(_ secrets: [(title: String, value: SecretBytes)], replace: Bool) throws {
        var seen = Set<[UInt8]>()
        for (title, value) in secrets {
            try Self.validate(title: title)
            guard seen.insert(Array(title.utf8)).inserted else {
                throw VaultError.invalid("the title \(TitleText.escaped(title)) is given twice; nothing was stored")
            }
            guard value.count <= VaultCipher.maximumValueLength else {
                throw VaultError.invalid("a value is at most \(VaultCipher.maximumValueLength) bytes (this one is \(value.count))")
            }
        }
        try write {
            let now = now()
            for (title, value) in secrets {
                let mac = cipher.titleMAC(title)
                var created = now
                if let existing = try sealedRow(mac) {
                    guard replace else { throw VaultError.exists(title: title) }
                    created = try cipher.open(existing, titleMAC: mac).created
                }
                let sealed = try cipher.seal(VaultSecret(title: title, value: value, created: created, modified: now), titleMAC: mac)
                try database.run("INSERT OR REPLACE INTO secret (title_mac, sealed) VALUES (?1, ?2)", [mac, sealed])
            }
        }
    }

    /// The secret titled `title`.
    public func secret(titled title: String) throws -> VaultSecret {
        let mac = cipher.titleMAC(title)
        return try read {
            guard let sealed = try sealedRow(mac) else { throw VaultError.notFound(title: title) }
            return try cipher.open(sealed, titleMAC: mac)
        }
    }

    /// Every secret, sorted by title. Each one is opened and checked.
    public func secrets() throws -> [VaultSecret] {
        try read {
            var secrets: [VaultSecret] = []
            try database.forEachRow("SELECT title_mac, sealed FROM secret") { row in
                secrets.append(try cipher.open(row.blob(at: 1), titleMAC: row.blob(at: 0)))
            }
            return secrets
        }.sorted { $0.title < $1.title }
    }

    /// The number of secrets.
    public func count() throws -> Int {
        try read { Int(try database.firstInteger("SELECT count(*) FROM secret") ?? 0) }
    }

    /// Removes the secret titled `title`.
    public func remove(title: String) throws {
        let mac = cipher.titleMAC(title)
        try write {
            guard try database.run("DELETE FROM secret WHERE title_mac = ?1", [mac]) == 1 else { throw VaultError.notFound(title: title) }
        }
    }

    /// Gives the secret titled `old` the title `new` (re-sealed for its new row).
    public func rename(_ old: String, to new: String) throws {
        try Self.validate(title: new)
        let (oldMAC, newMAC) = (cipher.titleMAC(old), cipher.titleMAC(new))
        try write {
            guard let sealed = try sealedRow(oldMAC) else { throw VaultError.notFound(title: old) }
            let taken = try sealedRow(newMAC) != nil
            guard oldMAC == newMAC || !taken else { throw VaultError.exists(title: new) }
            var secret = try cipher.open(sealed, titleMAC: oldMAC)
            secret.title = new
            secret.modified = now()
            try database.run("DELETE FROM secret WHERE title_mac = ?1", [oldMAC])
            try database.run("INSERT INTO secret (title_mac, sealed) VALUES (?1, ?2)", [newMAC, try cipher.seal(secret, titleMAC: newMAC)])
        }
    }

    private static func validate(title: String) throws {
        let length = title.utf8.count
        guard length > 0, length <= VaultCipher.maximumTitleLength else {
            throw VaultError.invalid("a title is 1 to \(VaultCipher.maximumTitleLength) bytes of UTF-8 (this one is \(length))")
        }
        guard !title.utf8.contains(0) else { throw VaultError.invalid("a title cannot contain a NUL byte") }
    }

    /// The sealed row of the secret whose title has the MAC `mac`, if any.
    private func sealedRow(_ mac: [UInt8]) throws -> [UInt8]? {
        try database.firstBlob("SELECT sealed FROM secret WHERE title_mac = ?1", [mac])
    }

    /// Runs `body` in a read transaction: one consistent snapshot of the vault.
    private func read<T>(_ body: () throws -> T) throws -> T {
        do { return try database.transaction(immediate: false, body) } catch let error as SQLiteError {
            throw Self.translate(error, path: path)
        }
    }

    /// Runs `body` in an IMMEDIATE transaction: all its changes or none.
    private func write(_ body: () throws -> Void) throws {
        do { try database.transaction(immediate: true, body) } catch let error as SQLiteError {
            throw Self.translate(error, path: path)
        }
    }

    /// SQLite's errors in the vault's words: a damaged file is `damaged`, not a crash.
    private static func translate(_ error: SQLiteError, path: String) -> VaultError {
        error.isDamage ? .damaged("\(path): \(error.message)") : .database(path: path, message: error.message)
    }
}
