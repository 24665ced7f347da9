import FoundationEssentials
import GRDB
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
    private let queue: DatabaseQueue
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
        var configuration = GRDB.Configuration()
        configuration.busyMode = .timeout(30)
        // The journal mode is not configured here: WAL is a property of the file, set once
        // when the vault is initialised, so an ordinary open neither writes nor takes the
        // write lock.
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
            let meta = try queue.read(Self.meta) ?? (try Self.initialize(queue, dataKey: dataKey))
            cipher = VaultCipher(dataKey: dataKey, vaultID: meta.vaultID)
            let check = cipher.keyCheck.withUnsafeBytes { SecretBytes(copying: $0) }
            guard meta.keyCheck.withUnsafeBytes({ check.constantTimeEquals($0) }) else { throw VaultError.wrongKey(path: path) }
        } catch let error as DatabaseError {
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
    private static func meta(_ db: Database) throws -> Meta? {
        guard try Bool.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'") == true
        else { return nil }
        var values: [String: Data] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT name, value FROM meta") { values[row["name"]] = row["value"] }
        guard let id = values["vault-id"] else { return nil }
        guard values["format"].map({ String(decoding: $0, as: UTF8.self) }) == "1" else {
            throw VaultError.damaged("unknown vault format")
        }
        guard id.count == 16 else { throw VaultError.damaged("malformed vault id") }
        return Meta(vaultID: Array(id), keyCheck: Array(values["key-check"] ?? Data()))
    }

    /// Sets WAL mode and writes the tables and meta, in one IMMEDIATE transaction, unless
    /// another process did so first (then its meta is returned).
    private static func initialize(_ queue: DatabaseQueue, dataKey: SecretBytes) throws -> Meta {
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            var created: Meta?
            try db.inTransaction(.immediate) {
                if let existing = try meta(db) {
                    created = existing
                    return .commit
                }
                try db.execute(sql: """
                    CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL) WITHOUT ROWID;
                    CREATE TABLE IF NOT EXISTS secret (title_mac BLOB PRIMARY KEY NOT NULL, sealed BLOB NOT NULL) WITHOUT ROWID;
                    """)
                let vaultID = try SecretBytes.random(count: 16).withUnsafeBytes { Array($0) }
                let check = VaultCipher(dataKey: dataKey, vaultID: vaultID).keyCheck
                try db.execute(sql: "INSERT INTO meta (name, value) VALUES ('format', CAST('1' AS BLOB)), ('vault-id', ?), ('key-check', ?)",
                               arguments: [Data(vaultID), Data(check)])
                created = Meta(vaultID: vaultID, keyCheck: check)
                return .commit
            }
            guard let created else { throw VaultError.damaged("the vault could not be initialised") }
            return created
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
        try write { db in
            let now = now()
            for (title, value) in secrets {
                let mac = cipher.titleMAC(title)
                var created = now
                if let existing = try Self.sealed(db, mac) {
                    guard replace else { throw VaultError.exists(title: title) }
                    created = try cipher.open(existing, titleMAC: mac).created
                }
                let sealed = try cipher.seal(VaultSecret(title: title, value: value, created: created, modified: now), titleMAC: mac)
                try db.execute(sql: "INSERT OR REPLACE INTO secret (title_mac, sealed) VALUES (?, ?)", arguments: [Data(mac), Data(sealed)])
            }
        }
    }

    /// The secret titled `title`.
    public func secret(titled title: String) throws -> VaultSecret {
        let mac = cipher.titleMAC(title)
        return try read { db in
            guard let sealed = try Self.sealed(db, mac) else { throw VaultError.notFound(title: title) }
            return try cipher.open(sealed, titleMAC: mac)
        }
    }

    /// Every secret, sorted by title. Each one is opened and checked.
    public func secrets() throws -> [VaultSecret] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT title_mac, sealed FROM secret").map { row in
                let mac: Data = row["title_mac"], sealed: Data = row["sealed"]
                return try cipher.open(Array(sealed), titleMAC: Array(mac))
            }
        }.sorted { $0.title < $1.title }
    }

    /// The number of secrets.
    public func count() throws -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM secret") ?? 0 }
    }

    /// Removes the secret titled `title`.
    public func remove(title: String) throws {
        let mac = cipher.titleMAC(title)
        try write { db in
            try db.execute(sql: "DELETE FROM secret WHERE title_mac = ?", arguments: [Data(mac)])
            guard db.changesCount == 1 else { throw VaultError.notFound(title: title) }
        }
    }

    /// Gives the secret titled `old` the title `new` (re-sealed for its new row).
    public func rename(_ old: String, to new: String) throws {
        try Self.validate(title: new)
        let (oldMAC, newMAC) = (cipher.titleMAC(old), cipher.titleMAC(new))
        try write { db in
            guard let sealed = try Self.sealed(db, oldMAC) else { throw VaultError.notFound(title: old) }
            let taken = try Self.sealed(db, newMAC) != nil
            guard oldMAC == newMAC || !taken else { throw VaultError.exists(title: new) }
            var secret = try cipher.open(sealed, titleMAC: oldMAC)
            secret.title = new
            secret.modified = now()
            try db.execute(sql: "DELETE FROM secret WHERE title_mac = ?", arguments: [Data(oldMAC)])
            try db.execute(sql: "INSERT INTO secret (title_mac, sealed) VALUES (?, ?)",
                           arguments: [Data(newMAC), Data(try cipher.seal(secret, titleMAC: newMAC))])
        }
    }

    private static func validate(title: String) throws {
        let length = title.utf8.count
        guard length > 0, length <= VaultCipher.maximumTitleLength else {
            throw VaultError.invalid("a title is 1 to \(VaultCipher.maximumTitleLength) bytes of UTF-8 (this one is \(length))")
        }
        guard !title.utf8.contains(0) else { throw VaultError.invalid("a title cannot contain a NUL byte") }
    }

    private static func sealed(_ db: Database, _ mac: [UInt8]) throws -> [UInt8]? {
        try Data.fetchOne(db, sql: "SELECT sealed FROM secret WHERE title_mac = ?", arguments: [Data(mac)]).map { Array($0) }
    }

    private func read<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try queue.read(body) } catch let error as DatabaseError { throw Self.translate(error, path: path) }
    }

    private func write(_ body: (Database) throws -> Void) throws {
        do {
            try queue.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    try body(db)
                    return .commit
                }
            }
        } catch let error as DatabaseError {
            throw Self.translate(error, path: path)
        }
    }

    /// SQLite's errors in the vault's words: a damaged file is `damaged`, not a crash.
    private static func translate(_ error: DatabaseError, path: String) -> VaultError {
        switch error.resultCode {
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: return .damaged("\(path): \(error.message ?? "malformed database")")
        default: return .database(path: path, message: error.message ?? "\(error.resultCode)")
        }
    }
}
