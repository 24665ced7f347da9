// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import CSecureRoomSystem
import FoundationEssentials
import Glibc
import SecureRoomCore
import SecureRoomVault

/// `secureroom-vault import`: store many secrets at once from JSON (the form `export`
/// writes).
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Store the secrets in a JSON array read from standard input, all or none.",
        discussion: """
            The input is an array of objects, at most 256 MiB, as 'export' writes them: \
            "title", then the value as "value" (stored as the UTF-8 of the string) or \
            "value_base64" (any bytes), and optionally "label", "content_type" and \
            "attributes" (an object of strings), which Secret Service clients such as \
            secret-tool look secrets up by. Without them a secret has its title as its label, \
            no attributes and text/plain. Any other key is refused, so that nothing is \
            dropped unseen. The secrets are written in one transaction: if any title exists \
            already (without --replace), appears twice, or is invalid, nothing is stored. \
            The input is plaintext; delete it afterwards.
            """)

    @Flag(help: "Overwrite secrets with the same titles (and their label, attributes, content type when given).")
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
