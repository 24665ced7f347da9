// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import SecureRoomCommandLine
import SecureRoomCore
import SecureRoomProgramSupport
import SecureRoomVault

/// `secureroom-vault list`: titles and dates.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the secrets' titles with when each was added and last changed.",
        discussion: """
            One line per secret, sorted by title: added and changed (UTC), then the title, \
            with control characters and backslashes escaped (\\n, \\t, \\\\, \\xNN). --json \
            prints an array of {"title", "created", "modified", "label", "attributes"} with titles exactly as stored, \
            and each secret's "label" and "attributes" (what Secret Service applications see; \
            see 'serve').
            """)

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var vault: VaultOptions

    func run() throws {
        try reportingFailures {
            let secrets = try vault.open().secrets()
            if json {
                let entries = secrets.map {
                    Entry(
                        title: $0.title, created: ISO8601.utc($0.created), modified: ISO8601.utc($0.modified),
                        label: $0.label, attributes: $0.attributes)
                }
                print(try JSONOutput.text(entries, pretty: true))
            } else {
                for secret in secrets {
                    print(
                        "\(ISO8601.utc(secret.created))  \(ISO8601.utc(secret.modified))  "
                            + "\(TitleText.escaped(secret.title))"
                    )
                }
            }
        }
    }

    private struct Entry: Encodable {
        let title: String
        let created: String
        let modified: String
        let label: String
        let attributes: [String: String]
    }
}
