// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import CSecureRoomSystem
import FoundationEssentials
import Glibc
import SecureRoomCommandLine
import SecureRoomCore
import SecureRoomImport
import SecureRoomSecretService
import SecureRoomVault

/// `secureroom-vault import`: store many secrets at once, from JSON (the form `export`
/// writes), a pass(1) store, a KeePassXC CSV or XML export or the Secret Service provider
/// running now; a re-run skips what is there.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Store secrets from JSON, a pass store, a KeePassXC export or a running Secret Service.",
        discussion: """
            --from json (the default) reads an array of objects, at most 256 MiB, from \
            the file named, else standard input, as 'export' writes them: "title", then the value as "value" \
            (stored as the UTF-8 of the string) or "value_base64" (any bytes), and optionally \
            "label", "content_type" and "attributes" (an object of strings), which Secret \
            Service clients such as secret-tool look secrets up by. Without them a secret has \
            its title as its label, no attributes and text/plain. Any other key is refused, so \
            that nothing is dropped unseen. JSON is all or none: if a title is in the vault \
            with another value (without --replace), appears twice, or is invalid, nothing is \
            stored. The input is plaintext; delete it afterwards.

            --from pass [DIR] reads a pass(1) store (DIR, else $PASSWORD_STORE_DIR, else \
            ~/.password-store): each NAME.gpg, decrypted by your gpg as 'pass show' does, \
            becomes the secret NAME with the whole file as its value and the attribute \
            pass-entry=NAME.

            --from keepassxc FILE reads KeePassXC's CSV or XML export (XML if the file \
            starts with '<?xml' or '<KeePassFile'): each entry becomes the secret \
            GROUP/TITLE with its password as the value, TITLE as the label and the \
            attributes username, url and keepassxc-group. Notes and TOTP are not imported, \
            nor, from XML, the entries' history and the recycle bin.

            --from secret-service reads the Secret Service provider running on your session \
            bus now (gnome-keyring, KeePassXC), before 'secureroom-vault serve' takes its \
            place: each unlocked item becomes a secret titled by its label (" (2)" for a label \
            seen before), with its label, attributes and content type, so secret-tool and \
            other clients find it here as they did there. Items the provider keeps locked are \
            counted as failed: unlock them there and import again.

            A secret already in the vault with the same value, label and attributes is \
            skipped, so a re-run imports nothing twice; one with another value is not \
            changed unless --replace. Every stored value is read back and compared. On a \
            terminal a progress bar shows the reading; at the end a summary counts what was \
            imported, skipped and failed, and names each failure. Exit status 1 if any entry \
            failed (the others are stored).
            """)

    @Option(help: "Where the secrets come from: json (a file, or standard input), pass, keepassxc or secret-service.")
    var from: ImportSource = .json

    @Argument(
        help: ArgumentHelp(
            "json: the file (default standard input); pass: the store (default $PASSWORD_STORE_DIR or "
                + "~/.password-store); keepassxc: the CSV or XML export.",
            valueName: "path"))
    var path: String?

    @Flag(help: "Overwrite secrets with the same titles (and their label, attributes, content type when given).")
    var replace = false

    @OptionGroup var vault: VaultOptions

    /// The largest input accepted.
    static let inputLimit = ImportLimits.defaults.fileBytes

    func validate() throws {
        switch from {
        case .secretService where path != nil:
            throw ValidationError("--from \(from.rawValue) takes no path")
        case .keepassxc where path == nil: throw ValidationError("--from keepassxc needs the exported file")
        default: break
        }
    }

    func run() throws {
        try reportingFailures {
            let store = try vault.open(create: true)
            let batch = try read()
            let summary = try Self.store(batch, in: store, replace: replace, allOrNothing: from == .json)
            printError(summary.text)
            if !summary.failed.isEmpty { throw ExitStatus.failure }
        }
    }

    /// The source's secrets.
    private func read() throws -> ImportBatch {
        switch from {
        case .json:
            guard let path else {
                return ImportBatch(
                    secrets: try Self.withWhole(STDIN_FILENO, "standard input", named: "the input") {
                        try Self.decode($0)
                    })
            }
            return ImportBatch(secrets: try Self.withFile(path) { try Self.decode($0) })
        case .pass:
            let passwords = try PasswordStore(path: path)
            let (names, unreadable) = passwords.names()
            var batch = ImportBatch(unreadable: unreadable)
            let progress = ImportProgress(total: names.count, activity: "decrypting")
            defer { progress.finish() }
            for (done, name) in names.enumerated() {
                progress.update(done)
                do { batch.secrets.append(try passwords.read(name)) } catch VaultError.invalid(let reason) {
                    batch.unreadable.append((name, reason))
                }
            }
            return batch
        case .keepassxc:
            guard let path else { throw ValidationError("--from keepassxc needs the exported file") }
            return try Self.withFile(path) {
                KeePassXCXML.isXML($0) ? try KeePassXCXML($0).batch() : try KeePassXCExport($0).batch()
            }
        case .secretService:
            let (items, unreadable) = try ProviderReader(limit: VaultStore.maximumValueLength).readAll()
            var batch = ImportBatch(unreadable: unreadable)
            var titles = ImportTitles()
            // The provider's order is its own: sorted, a re-run gives each item the same title.
            let ordered = items.sorted {
                ($0.label, $0.attributes.sorted { $0.key < $1.key }.description, $0.contentType)
                    < ($1.label, $1.attributes.sorted { $0.key < $1.key }.description, $1.contentType)
            }
            for item in ordered {
                let title = titles.unique(item.label.isEmpty ? "untitled" : item.label)
                batch.secrets.append(
                    VaultStore.NewSecret(
                        title: title, value: item.value, label: item.label, attributes: item.attributes,
                        contentType: item.contentType))
            }
            return batch
        }
    }

    /// `body` over the whole file at `path`.
    private static func withFile<T>(_ path: String, _ body: ([UInt8]) throws -> T) throws -> T {
        let file = try FileDescriptor.open(path, in: nil, flags: O_RDONLY, displayPath: path)
        return try withWhole(file.rawValue, path, named: path, body)
    }

    /// `body` over everything `descriptor` (`path`, for messages; `named` when it is too
    /// large) holds, at most `inputLimit` bytes, wiped afterwards: the plaintext of an export.
    private static func withWhole<Result>(
        _ descriptor: Int32, _ path: String, named: String, _ body: ([UInt8]) throws -> Result
    ) throws -> Result {
        var bytes = try FileDescriptor.readAll(
            descriptor, limit: inputLimit,
            failure: { SecureRoomError.system(operation: "read", path: path, errno: errno) },
            tooLarge: { VaultError.invalid("\(named) is larger than \(inputLimit >> 20) MiB") })
        defer { bytes.withUnsafeMutableBytes { sr_explicit_bzero($0.baseAddress, $0.count) } }
        return try body(bytes)
    }

    /// What `store` did: how many secrets were imported and skipped, and which failed why.
    struct Summary {
        /// Secrets stored and read back intact.
        var imported = 0
        /// Secrets already in the vault as given.
        var skipped = 0
        /// Entries not imported: the source's unreadable ones, conflicts, bad read-backs.
        var failed: [(name: String, reason: String)] = []

        /// The lines for standard error.
        var text: String {
            let secrets = imported == 1 ? "1 secret" : "\(imported) secrets"
            return
                (["imported \(secrets), skipped \(skipped) already in the vault, failed \(failed.count)"]
                + failed.map { "  \(TitleText.escaped($0.name)): \($0.reason)" }).joined(separator: "\n")
        }
    }

    /// Stores the secrets of `batch` that are not in `store` as given, in one transaction,
    /// then reads each back. A title present with another value fails (`replace`
    /// overwrites it); with `allOrNothing` (JSON) that stores nothing at all.
    static func store(_ batch: ImportBatch, in store: VaultStore, replace: Bool, allOrNothing: Bool) throws -> Summary {
        var summary = Summary(failed: batch.unreadable)
        var fresh: [VaultStore.NewSecret] = []
        // A title given twice is refused before anything is skipped: one value would be lost.
        var titles = Set<String>()
        for secret in batch.secrets where !titles.insert(secret.title).inserted {
            throw VaultError.invalid("the title \(TitleText.escaped(secret.title)) is given twice; nothing was stored")
        }
        for secret in batch.secrets {
            if !allOrNothing {
                do { try VaultStore.validate(secret) } catch VaultError.invalid(let reason) {
                    summary.failed.append((secret.title, reason))
                    continue
                }
            }
            let existing: VaultSecret?
            do { existing = try store.secret(titled: secret.title) } catch VaultError.notFound { existing = nil }
            if let existing, Self.holds(existing, secret) {
                summary.skipped += 1
            } else if existing != nil && !replace {
                if allOrNothing { throw VaultError.exists(title: secret.title) }
                summary.failed.append(
                    (secret.title, "already in the vault with another value (--replace overwrites it)"))
            } else {
                fresh.append(secret)
            }
        }
        try store.add(fresh, replace: replace)
        let progress = ImportProgress(total: fresh.count, activity: "checking")
        defer { progress.finish() }
        for (done, secret) in fresh.enumerated() {
            progress.update(done)
            if secret.value.constantTimeEquals(try store.secret(titled: secret.title).value) {
                summary.imported += 1
            } else {
                summary.failed.append((secret.title, "read back, its value differs from the source's"))
            }
        }
        return summary
    }

    /// Whether `existing` is `new` already: the same value, and the same label, attributes
    /// and content type where `new` gives them.
    private static func holds(_ existing: VaultSecret, _ new: VaultStore.NewSecret) -> Bool {
        existing.value.constantTimeEquals(new.value) && (new.label ?? existing.label) == existing.label
            && (new.attributes ?? existing.attributes) == existing.attributes
            && (new.contentType ?? existing.contentType) == existing.contentType
    }

    /// The entries as secrets with their values in wiped buffers. The decoder reads
    /// `input` in place (no copy of the plaintext into a `Data` that nobody wipes); the
    /// `String`s it makes on the way are the standard library's and cannot be wiped
    /// (SECURITY.md §5).
    static func decode(_ input: [UInt8]) throws -> [VaultStore.NewSecret] {
        do {
            return try input.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress, !bytes.isEmpty else { throw VaultError.invalid("empty input") }
                let view = Data(
                    bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none)
                return try JSONDecoder().decode([ExportedSecret].self, from: view).enumerated().map {
                    try $0.element.newSecret(number: $0.offset + 1)
                }
            }
        } catch let error as VaultError {
            throw error
        } catch {
            throw VaultError.invalid(
                "standard input is not a JSON array of {\"title\", \"value\" or \"value_base64\", \"label\", "
                    + "\"content_type\", \"attributes\"} objects")
        }
    }
}
