// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import CSecureRoomSystem
import FoundationEssentials
import Glibc
import SecureRoomCore
import SecureRoomVault

/// `secureroom-vault import`: store many secrets at once from JSON.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Store the secrets in a JSON array read from standard input, all or none.",
        discussion: """
            The input is an array of {"title": "...", "value": "..."} objects, at most 256 MiB; \
            each value is stored as the UTF-8 of its string (use 'add' for binary values). The \
            secrets are written in one transaction: if any title exists already (without \
            --replace), appears twice, or is invalid, nothing is stored. The input is \
            plaintext; delete it afterwards.
            """)

    @Flag(help: "Overwrite secrets with the same titles.")
    var replace = false

    @OptionGroup var vault: VaultOptions

    /// The largest input accepted.
    static let inputLimit = 256 << 20

    func run() throws {
        try reportingFailures {
            let store = try vault.open(create: true)
            var input = try FileDescriptor.readAll(
                STDIN_FILENO, limit: Self.inputLimit,
                failure: { SecureRoomError.system(operation: "read", path: "standard input", errno: errno) },
                tooLarge: { VaultError.invalid("the input is larger than \(Self.inputLimit >> 20) MiB") })
            defer { input.withUnsafeMutableBytes { sr_explicit_bzero($0.baseAddress, $0.count) } }
            let secrets = try Self.decode(input)
            try store.add(secrets, replace: replace)
            printError("imported \(secrets.count) secret\(secrets.count == 1 ? "" : "s")")
        }
    }

    private struct Entry: Decodable {
        let title: String
        let value: String
    }

    /// The entries as titles and values in wiped buffers. The decoder reads `input` in
    /// place (no copy of the plaintext into a `Data` that nobody wipes); the `String`s it
    /// makes on the way are the standard library's and cannot be wiped (SECURITY.md §5).
    static func decode(_ input: [UInt8]) throws -> [(title: String, value: SecretBytes)] {
        let entries: [Entry]
        do {
            entries = try input.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress, !bytes.isEmpty else { throw VaultError.invalid("empty input") }
                let view = Data(
                    bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none)
                return try JSONDecoder().decode([Entry].self, from: view)
            }
        } catch {
            throw VaultError.invalid("standard input is not a JSON array of {\"title\", \"value\"} objects")
        }
        return entries.map { entry in
            var value = entry.value
            return (entry.title, value.withUTF8 { SecretBytes(copying: UnsafeRawBufferPointer($0)) })
        }
    }
}
