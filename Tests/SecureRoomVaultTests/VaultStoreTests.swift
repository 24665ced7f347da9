// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomCore
import XCTest

@testable import SecureRoomVault

/// The vault store on real SQLite files: round trips, limits, tampering, file checks.
final class VaultStoreTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        var template = Array("/tmp/secureroom-vault-test.XXXXXX".utf8CString)
        directory = String(cString: try XCTUnwrap(mkdtemp(&template)))
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: directory) }

    private var path: String { directory + "/vault.sqlite" }

    private func value(_ text: String) -> SecretBytes { bytes(Array(text.utf8)) }
    private func bytes(_ array: [UInt8]) -> SecretBytes { array.withUnsafeBytes { SecretBytes(copying: $0) } }
    private func text(_ secret: SecretBytes) -> String {
        secret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }
    private func array(_ secret: SecretBytes) -> [UInt8] { secret.withUnsafeBytes { Array($0) } }

    func testRoundTripsIncludingNewlinesAndBinaryishValues() throws {
        let key = try VaultKey.generate()
        let store = try VaultStore(path: path, dataKey: key, create: true)
        let binaryish = (1...255).map { UInt8($0) } + Array("\r\n\t end".utf8)
        try store.add(title: "github", value: value("hunter2"), replace: false)
        try store.add(title: "two\nlines\ttitle", value: value("line one\nline two\n"), replace: false)
        try store.add(title: "bytes ✓", value: bytes(binaryish), replace: false)

        // A second handle (another process would do the same) sees all of it.
        let reopened = try VaultStore(path: path, dataKey: key, create: false)
        XCTAssertEqual(text(try reopened.secret(titled: "github").value), "hunter2")
        XCTAssertEqual(text(try reopened.secret(titled: "two\nlines\ttitle").value), "line one\nline two\n")
        XCTAssertEqual(array(try reopened.secret(titled: "bytes ✓").value), binaryish)
        XCTAssertEqual(try reopened.secrets().map(\.title), ["bytes ✓", "github", "two\nlines\ttitle"])

        XCTAssertThrowsError(try store.add(title: "github", value: value("x"), replace: false)) {
            XCTAssertEqual($0 as? VaultError, .exists(title: "github"))
        }
        let created = try store.secret(titled: "github").created
        try store.add(title: "github", value: value("correct horse"), replace: true)
        XCTAssertEqual(text(try store.secret(titled: "github").value), "correct horse")
        XCTAssertEqual(try store.secret(titled: "github").created, created)

        try store.rename("github", to: "GitHub")
        XCTAssertThrowsError(try store.secret(titled: "github")) {
            XCTAssertEqual($0 as? VaultError, .notFound(title: "github"))
        }
        XCTAssertEqual(text(try store.secret(titled: "GitHub").value), "correct horse")
        XCTAssertThrowsError(try store.rename("GitHub", to: "bytes ✓")) {
            XCTAssertEqual($0 as? VaultError, .exists(title: "bytes ✓"))
        }
        XCTAssertThrowsError(try store.rename("nope", to: "x")) {
            XCTAssertEqual($0 as? VaultError, .notFound(title: "nope"))
        }

        try store.remove(title: "GitHub")
        XCTAssertThrowsError(try store.remove(title: "GitHub")) {
            XCTAssertEqual($0 as? VaultError, .notFound(title: "GitHub"))
        }
        XCTAssertEqual(try store.count(), 2)
    }

    func testTitlesAreNotStoredInClear() throws {
        let store = try VaultStore(path: path, dataKey: try VaultKey.generate(), create: true)
        try store.add(title: "bank-of-somewhere", value: value("pin 2580 for the card"), replace: false)
        let file =
            try Data(contentsOf: URL(fileURLWithPath: path))
            + ((try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"))) ?? Data())
        XCTAssertNil(file.range(of: Data("bank-of-somewhere".utf8)))
        XCTAssertNil(file.range(of: Data("2580".utf8)))
    }

    func testLimitsAreClearErrors() throws {
        let store = try VaultStore(path: path, dataKey: try VaultKey.generate(), create: true)
        let big = SecretBytes(count: 64 * 1024)
        big.withUnsafeMutableBytes { for index in $0.indices { $0[index] = UInt8(33 + index % 90) } }
        try store.add(title: "64 KiB", value: big, replace: false)
        XCTAssertEqual(array(try store.secret(titled: "64 KiB").value), array(big))

        XCTAssertThrowsError(try store.add(title: "huge", value: SecretBytes(count: (1 << 20) + 1), replace: false)) {
            XCTAssertEqual("\($0)", "a value is at most 1048576 bytes (this one is 1048577)")
        }
        XCTAssertThrowsError(try store.add(title: "", value: value("x"), replace: false)) {
            XCTAssertEqual("\($0)", "a title is 1 to 1024 bytes of UTF-8 (this one is 0)")
        }
        XCTAssertThrowsError(
            try store.add(title: String(repeating: "t", count: 1025), value: value("x"), replace: false))
        XCTAssertThrowsError(try store.add(title: "a\u{0}b", value: value("x"), replace: false)) {
            XCTAssertEqual("\($0)", "a title cannot contain a NUL byte")
        }
    }

    func testTenThousandSecrets() throws {
        let store = try VaultStore(path: path, dataKey: try VaultKey.generate(), create: true)
        for index in 0..<10_000 {
            try store.add(title: "site-\(index)", value: value("password-\(index)"), replace: false)
        }
        XCTAssertEqual(try store.count(), 10_000)
        XCTAssertEqual(text(try store.secret(titled: "site-7321").value), "password-7321")
        let all = try store.secrets()
        XCTAssertEqual(all.count, 10_000)
        XCTAssertEqual(Set(all.map(\.title)).count, 10_000)
    }

    // MARK: tampering: each a clear error, never garbage, never a crash

    private func withDatabase(_ body: (SQLiteConnection) throws -> Void) throws {
        let database = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 1_000)
        try database.transaction(immediate: true) { try body(database) }
    }

    func testFlippedByteInABlobIsDamage() throws {
        let store = try VaultStore(path: path, dataKey: try VaultKey.generate(), create: true)
        try store.add(title: "a", value: value("alpha"), replace: false)
        try withDatabase { db in
            var sealed = try XCTUnwrap(try db.firstBlob("SELECT sealed FROM secret"))
            sealed[20] ^= 0x01
            try db.run("UPDATE secret SET sealed = ?1", [sealed])
        }
        XCTAssertThrowsError(try store.secret(titled: "a")) {
            XCTAssertEqual(
                "\($0)", "the vault is damaged: a secret does not open with this vault's key (altered or moved)")
        }
        XCTAssertThrowsError(try store.secrets())
    }

    func testBlobsSwappedBetweenRowsDoNotOpen() throws {
        let store = try VaultStore(path: path, dataKey: try VaultKey.generate(), create: true)
        try store.add(title: "a", value: value("alpha"), replace: false)
        try store.add(title: "b", value: value("bravo"), replace: false)
        try withDatabase { db in
            var rows: [(mac: [UInt8], sealed: [UInt8])] = []
            try db.forEachRow("SELECT title_mac, sealed FROM secret") { rows.append(($0.blob(at: 0), $0.blob(at: 1))) }
            XCTAssertEqual(rows.count, 2)
            try db.run("UPDATE secret SET sealed = ?1 WHERE title_mac = ?2", [rows[1].sealed, rows[0].mac])
            try db.run("UPDATE secret SET sealed = ?1 WHERE title_mac = ?2", [rows[0].sealed, rows[1].mac])
        }
        for title in ["a", "b"] {
            XCTAssertThrowsError(try store.secret(titled: title)) { XCTAssertTrue($0 is VaultError, "\($0)") }
        }
    }

    func testBlobFromAnotherVaultDoesNotOpen() throws {
        let key = try VaultKey.generate()
        let other = directory + "/other.sqlite"
        try VaultStore(path: other, dataKey: key, create: true).add(
            title: "a", value: value("from elsewhere"), replace: false)
        let store = try VaultStore(path: path, dataKey: key, create: true)
        try store.add(title: "a", value: value("alpha"), replace: false)
        let foreign = try XCTUnwrap(
            try SQLiteConnection(path: other, busyTimeoutMilliseconds: 1_000).firstBlob("SELECT sealed FROM secret"))
        try withDatabase { try $0.run("UPDATE secret SET sealed = ?1", [foreign]) }
        XCTAssertThrowsError(try store.secret(titled: "a")) { XCTAssertTrue($0 is VaultError, "\($0)") }
    }

    func testWrongKeyIsRefusedAtOpen() throws {
        _ = try VaultStore(path: path, dataKey: try VaultKey.generate(), create: true)
        XCTAssertThrowsError(try VaultStore(path: path, dataKey: try VaultKey.generate(), create: false)) {
            XCTAssertEqual($0 as? VaultError, .wrongKey(path: path))
        }
    }

    func testTruncatedDatabaseIsDamage() throws {
        let key = try VaultKey.generate()
        do {
            let store = try VaultStore(path: path, dataKey: key, create: true)
            for index in 0..<200 {
                try store.add(title: "t\(index)", value: value(String(repeating: "v", count: 500)), replace: false)
            }
        }
        // Checkpoint the WAL into the main file, then cut the file in half.
        _ = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 1_000).firstBlob(
            "PRAGMA wal_checkpoint(TRUNCATE)")
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        XCTAssertEqual(truncate(path, off_t(size / 2)), 0)
        do {
            let store = try VaultStore(path: path, dataKey: key, create: false)
            _ = try store.secrets()
            XCTFail("a truncated vault was read without an error")
        } catch let error as VaultError {
            XCTAssertTrue("\(error)".hasPrefix("the vault is damaged: ") || "\(error)".contains(path), "\(error)")
        }
        // Not a database at all.
        try Data("SQLite format 2\0 garbage".utf8).write(to: URL(fileURLWithPath: path))
        try? FileManager.default.removeItem(atPath: path + "-wal")
        try? FileManager.default.removeItem(atPath: path + "-shm")
        XCTAssertThrowsError(try VaultStore(path: path, dataKey: key, create: false)) {
            XCTAssertTrue("\($0)".hasPrefix("the vault is damaged: "), "\($0)")
        }
    }

    // MARK: the file

    func testVaultFilesArePrivate() throws {
        let store = try VaultStore(path: path, dataKey: try VaultKey.generate(), create: true)
        try store.add(title: "a", value: value("alpha"), replace: false)
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
            XCTAssertEqual(mode & 0o077, 0, "\(file) has mode \(String(mode, radix: 8))")
        }
    }

    func testInsecureOrMissingFilesAreRefused() throws {
        let key = try VaultKey.generate()
        XCTAssertThrowsError(try VaultStore(path: path, dataKey: key, create: false)) {
            XCTAssertEqual($0 as? VaultError, .missing(path: path))
        }
        _ = try VaultStore(path: path, dataKey: key, create: true)
        chmod(path, 0o644)
        XCTAssertThrowsError(try VaultStore(path: path, dataKey: key, create: false)) {
            XCTAssertEqual("\($0)", "refusing \(path): readable or writable by others (run: chmod 600 \(path))")
        }
        chmod(path, 0o600)
        let link = directory + "/link.sqlite"
        XCTAssertEqual(symlink(path, link), 0)
        XCTAssertThrowsError(try VaultStore(path: link, dataKey: key, create: false)) {
            XCTAssertEqual("\($0)", "refusing \(link): not a regular file (a symlink?)")
        }
        chmod(directory, 0o777)
        XCTAssertThrowsError(try VaultStore(path: path, dataKey: key, create: false)) {
            XCTAssertTrue("\($0)".hasPrefix("refusing \(directory): "), "\($0)")
        }
        chmod(directory, 0o700)
    }

    // MARK: items as the Secret Service sees them

    func testItemsWithLabelsAndAttributesAreFoundByAttributesOnly() throws {
        let store = try VaultStore(path: path, dataKey: try VaultKey.generate(), create: true)
        let (first, replacedFirst) = try store.create(
            label: "GitHub", attributes: ["service": "github.com", "user": "octocat"],
            contentType: "text/plain", value: value("one"), replace: false)
        XCTAssertFalse(replacedFirst)
        XCTAssertEqual(first.title, "GitHub")
        let (second, _) = try store.create(
            label: "GitHub", attributes: ["service": "github.com", "user": "hubot"],
            contentType: "application/octet-stream", value: bytes([0, 1, 0]), replace: false)
        XCTAssertEqual(second.title, "GitHub (2)", "a label already used as a title gets a number")
        try store.add(title: "cli secret", value: value("three"), replace: false)

        XCTAssertEqual(Set(try store.search(["service": "github.com"]).map(\.title)), ["GitHub", "GitHub (2)"])
        XCTAssertEqual(try store.search(["service": "github.com", "user": "hubot"]).map(\.title), ["GitHub (2)"])
        XCTAssertEqual(try store.search(["user": "nobody"]).count, 0)
        XCTAssertEqual(try store.search([:]).count, 3)
        let cli = try store.secret(titled: "cli secret")
        XCTAssertEqual(cli.label, "cli secret")
        XCTAssertEqual(cli.attributes, [:])
        XCTAssertEqual(cli.contentType, "text/plain")
        XCTAssertEqual(array(try store.secret(id: second.id).value), [0, 1, 0])
        XCTAssertEqual(try store.secret(id: second.id).contentType, "application/octet-stream")
        XCTAssertEqual(Set(try store.ids()), Set([first.id, second.id, cli.id]))

        // replace: the item with exactly these attributes, same row, title and creation date.
        let (replaced, wasReplaced) = try store.create(
            label: "GitHub renamed", attributes: ["service": "github.com", "user": "octocat"],
            contentType: "text/plain", value: value("new"), replace: true)
        XCTAssertTrue(wasReplaced)
        XCTAssertEqual(replaced.id, first.id)
        XCTAssertEqual(try store.secret(id: first.id).label, "GitHub renamed")
        XCTAssertEqual(try store.secret(id: first.id).title, "GitHub")
        XCTAssertEqual(text(try store.secret(id: first.id).value), "new")
        // A subset of attributes is not "the same item": a new one is made.
        let (subset, subsetReplaced) = try store.create(
            label: "GitHub", attributes: ["service": "github.com"],
            contentType: "text/plain", value: value("x"), replace: true)
        XCTAssertFalse(subsetReplaced)
        XCTAssertEqual(subset.title, "GitHub (3)")

        // update: attributes move in the index too.
        try store.update(id: second.id, attributes: ["service": "gitlab.com"])
        XCTAssertEqual(try store.search(["user": "hubot"]).count, 0)
        XCTAssertEqual(try store.search(["service": "gitlab.com"]).map(\.id), [second.id])
        try store.update(id: second.id, label: "GitLab", value: (value("v2"), contentType: "text/plain"))
        XCTAssertEqual(try store.secret(id: second.id).label, "GitLab")
        XCTAssertEqual(text(try store.secret(id: second.id).value), "v2")

        // The CLI's replace keeps what applications set.
        try store.add(title: "GitHub", value: value("from the cli"), replace: true)
        XCTAssertEqual(try store.secret(id: first.id).attributes, ["service": "github.com", "user": "octocat"])
        XCTAssertEqual(try store.search(["user": "octocat"]).map { text($0.value) }, ["from the cli"])
        // Renaming moves the row and its attributes; a label equal to the title follows it.
        try store.rename("cli secret", to: "cli renamed")
        XCTAssertEqual(try store.secret(titled: "cli renamed").label, "cli renamed")
        try store.rename("GitHub", to: "GitHub moved")
        XCTAssertEqual(try store.secret(titled: "GitHub moved").label, "GitHub renamed")
        XCTAssertEqual(try store.search(["user": "octocat"]).map(\.title), ["GitHub moved"])

        try store.remove(id: second.id)
        XCTAssertThrowsError(try store.secret(id: second.id)) { XCTAssertEqual($0 as? VaultError, .noSuchItem) }
        XCTAssertThrowsError(try store.remove(id: second.id)) { XCTAssertEqual($0 as? VaultError, .noSuchItem) }
        XCTAssertEqual(try store.search(["service": "gitlab.com"]).count, 0)
        try store.remove(title: "GitHub moved")
        XCTAssertEqual(try store.search(["user": "octocat"]).count, 0)
        let orphans = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 1000)
            .firstInteger("SELECT count(*) FROM attribute WHERE title_mac NOT IN (SELECT title_mac FROM secret)")
        XCTAssertEqual(orphans, 0, "no index entry outlives its secret")
    }

    func testAttributesAndLabelsAreNotStoredInClearAndLimitsAreClearErrors() throws {
        let store = try VaultStore(path: path, dataKey: try VaultKey.generate(), create: true)
        _ = try store.create(
            label: "Label-in-clear?", attributes: ["attribute-name": "attribute-value"],
            contentType: "text/plain", value: value("v"), replace: false)
        let file =
            try Data(contentsOf: URL(fileURLWithPath: path))
            + ((try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"))) ?? Data())
        for needle in ["Label-in-clear?", "attribute-name", "attribute-value"] {
            XCTAssertNil(file.range(of: Data(needle.utf8)), needle)
        }
        let long = String(repeating: "x", count: 1025)
        let cases: [(String, [String: String], Int, String)] = [
            (long, [:], 1, "a label is at most 1024 bytes (this one is 1025)"),
            ("ok", ["": "v"], 1, "an attribute's name is 1 to 1024 bytes"),
            ("ok", ["n": long], 1, "an attribute's name is 1 to 1024 bytes"),
            (
                "ok", Dictionary(uniqueKeysWithValues: (0...64).map { ("a\($0)", "v") }), 1,
                "at most 64 attributes (this one has 65)"
            ),
            ("ok", [:], (1 << 20) + 1, "a value is at most 1048576 bytes"),
        ]
        for (label, attributes, size, message) in cases {
            XCTAssertThrowsError(
                try store.create(
                    label: label, attributes: attributes, contentType: "text/plain",
                    value: SecretBytes(count: size), replace: false)
            ) { error in
                guard case let .invalid(text) = error as? VaultError else { return XCTFail("\(error)") }
                XCTAssertTrue(text.contains(message), text)
            }
        }
        XCTAssertEqual(try store.count(), 1, "nothing was stored by a refused item")
    }

    func testAVaultWithoutTheAttributeTableGainsIt() throws {
        let key = try VaultKey.generate()
        try VaultStore(path: path, dataKey: key, create: true).add(title: "old", value: value("v"), replace: false)
        let database = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 1000)
        try database.run("DROP TABLE attribute")
        let reopened = try VaultStore(path: path, dataKey: key, create: false)
        XCTAssertEqual(try reopened.search(["any": "thing"]).count, 0)
        XCTAssertEqual(text(try reopened.secret(titled: "old").value), "v")
        XCTAssertEqual(try database.firstInteger("SELECT count(*) FROM sqlite_master WHERE name = 'attribute'"), 1)
    }

    func testReplaceWithoutAttributesNeverOverwritesAndLongLabelsStillGetATitle() throws {
        let store = try VaultStore(path: path, dataKey: try VaultKey.generate(), create: true)
        try store.add(title: "cli secret", value: value("keep me"), replace: false)
        let (made, replaced) = try store.create(
            label: "no attributes", attributes: [:], contentType: "text/plain",
            value: value("new"), replace: true)
        XCTAssertFalse(replaced, "an empty attribute set names no item")
        XCTAssertEqual(text(try store.secret(titled: "cli secret").value), "keep me")
        XCTAssertEqual(made.title, "no attributes")

        // A label of the longest title, taken twice: the second is shortened to fit " (2)".
        let long = String(repeating: "é", count: 512)
        XCTAssertEqual(
            try store.create(
                label: long, attributes: ["n": "1"], contentType: "text/plain", value: value("1"), replace: false
            ).secret.title, long)
        let second = try store.create(
            label: long, attributes: ["n": "2"], contentType: "text/plain", value: value("2"), replace: false
        ).secret
        XCTAssertTrue(second.title.hasSuffix(" (2)"), second.title)
        XCTAssertLessThanOrEqual(second.title.utf8.count, 1024)
        XCTAssertEqual(second.label, long, "the label is kept whole")
        // Past 100 of one label, a random suffix: no quadratic probing, no failure.
        for number in 3...103 {
            _ = try store.create(
                label: "same", attributes: ["n": "\(number)"], contentType: "text/plain", value: value("v"),
                replace: false)
        }
        let titles = try store.search([:]).map(\.title).filter { $0.hasPrefix("same") }
        XCTAssertEqual(titles.count, 101)
        XCTAssertTrue(titles.contains("same (100)"))
        XCTAssertEqual(
            titles.filter { $0.range(of: #"^same \([0-9a-f]{8}\)$"#, options: .regularExpression) != nil }.count, 1)
    }

    func testSearchWithABroadAndANarrowAttributeFindsTheOne() throws {
        let store = try VaultStore(path: path, dataKey: try VaultKey.generate(), create: true)
        for index in 0..<50 {
            _ = try store.create(
                label: "site \(index)", attributes: ["app": "bench", "title": "site-\(index)"],
                contentType: "text/plain", value: value("\(index)"), replace: false)
        }
        // Each query has a broad attribute (50 matches) and a narrow one (1): either way round,
        // exactly one secret comes back.
        for _ in 0..<10 {
            let found = try store.search(["app": "bench", "title": "site-7"])
            XCTAssertEqual(found.map { text($0.value) }, ["7"])
        }
        XCTAssertEqual(try store.search(["app": "bench", "title": "site-77"]).count, 0)
    }
}
