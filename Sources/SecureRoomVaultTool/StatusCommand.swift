// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Glibc
import SecureRoomCommandLine
import SecureRoomCore
import SecureRoomVault

/// `secureroom-vault status`.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Say whether the vault is locked, how long it stays unlocked, and how many secrets it holds.",
        discussion: "Exit status 0 when unlocked, 3 when locked (so scripts can test it).")

    @Flag(help: "Print JSON: {\"unlocked\", \"seconds_left\", \"session_bound\", \"file\", \"secrets\"}.")
    var json = false

    @OptionGroup var vault: VaultOptions

    func run() throws {
        try reportingFailures {
            let keyring = try VaultKeyring.current()
            let path = try vault.path()
            let unlocked = try VaultOptions.unlockedKey(keyring)
            var secrets: Int?
            if let (key, _) = unlocked, access(path, F_OK) == 0 {
                secrets = try VaultStore(path: path, dataKey: key, create: false).count()
            }
            let sessionBound = unlocked == nil ? nil : try keyring.isSessionBound()
            if json {
                let report = Report(
                    unlocked: unlocked != nil, seconds_left: unlocked?.secondsLeft, session_bound: sessionBound,
                    file: path, secrets: secrets)
                print(try JSONOutput.text(report, pretty: true))
            } else if let (_, left) = unlocked {
                let values: KeyValuePairs = ["user": keyring.user.rawValue, "duration": DurationText.spoken(left)]
                print(
                    sessionBound == true
                        ? localized(
                            "Vault of {user}: unlocked, {duration} left; it also locks when your last login session "
                                + "ends.", values)
                        : localized(
                            "Vault of {user}: unlocked, {duration} left; only the timeout locks it (no login session "
                                + "of yours was counted when it was unlocked).", values))
                print(
                    secrets.map {
                        localized(
                            "File: {path} ({count} secret)", plural: "File: {path} ({count} secrets)", count: $0,
                            ["path": path])
                    } ?? localized("File: {path} (not created yet)", ["path": path]))
            } else if let explanation = try vaultState(of: keyring.user, try systemConfiguration()).explanation(
                for: keyring.user)
            {
                print(
                    localized(
                        "Vault of {user}: closed. {explanation}",
                        ["user": keyring.user.rawValue, "explanation": explanation]))
                print(localized("File: {path}", ["path": path]))
            } else {
                print(
                    localized(
                        "Vault of {user}: locked (it locks itself vault_timeout after it was unlocked, and when your "
                            + "last session closes). Run 'secureroom-vault unlock' to open it.",
                        ["user": keyring.user.rawValue]))
                print(localized("File: {path}", ["path": path]))
            }
            if unlocked == nil { throw ExitStatus.locked }
        }
    }

    private struct Report: Encodable {
        let unlocked: Bool
        let seconds_left: Int64?
        let session_bound: Bool?
        let file: String
        let secrets: Int?
    }
}
