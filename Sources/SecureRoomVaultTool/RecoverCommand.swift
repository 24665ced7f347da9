// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import SecureRoomCommandLine
import SecureRoomCore
import SecureRoomProgramSupport
import SecureRoomVault

/// `secureroom-vault recover`: the user's own way back into a vault their PIN no longer
/// opens, with the recovery key (no administrator).
struct RecoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Make your vault open with your PIN again, using your recovery key.",
        discussion: """
            For a vault your PIN no longer opens: a PIN an administrator set without your \
            recovery key, a vault key erased by wipe_after, or a forgotten PIN you replaced \
            with 'secureroom enrol --replace'. Asks for the recovery key (40 digits, typed \
            without echo), then your PIN (checked as at login; a wrong one counts). The \
            recovery key is tried first: a wrong one is refused before the PIN is checked, and \
            nothing is counted. Then the vault key is wrapped under your PIN and the vault is unlocked; \
            the recovery key keeps working. With --stdin both are read as lines from standard \
            input, the recovery key first.

            Without a PIN, create one first ('secureroom enrol --replace' takes your \
            password), then run this again. A vault that already opens with your PIN needs \
            nothing (exit status 0).
            """)

    @Flag(help: "Read the recovery key and the PIN as lines from standard input.")
    var stdin = false

    func run() throws {
        try reportingFailures {
            let keyring = try VaultKeyring.current()
            let user = keyring.user
            let configuration = try systemConfiguration()
            switch try vaultState(of: user, configuration) {
            case .pin:
                print(localized("Your vault already opens with your PIN; there is nothing to recover."))
                return
            case .noPIN(recoverable: true):
                printError(
                    localized(
                        "You have no PIN: create one with 'secureroom enrol --replace' (your password), then run "
                            + "'secureroom-vault recover' again."))
                throw ExitStatus.failure
            case .recoveryOnly, .erased:
                break
            case let state:
                printError(state.explanation(for: user) ?? localized("there is no vault key to recover"))
                throw ExitStatus.failure
            }
            let outcome = try pinAuthority(for: StateStore(configuration: configuration)).recoverVault(
                user,
                recoveryKey: {
                    let typed =
                        stdin
                        ? try HiddenLine.readVisible(limit: 128)
                        : try HiddenLine.read(prompt: localized("Recovery key: "), limit: 128)
                    return try typed.withUnsafeBytes { try RecoveryKey(typed: $0) }
                },
                pin: { try PINEntry.read(prompt: localized("PIN: "), format: configuration.format, forceLine: stdin) })
            guard case .success(let success) = outcome, let vaultKey = success.vaultKey else {
                try reportFailedCheck(outcome, user: user)
            }
            try keyring.storeFollowingSessions(
                vaultKey, timeout: configuration.vaultTimeout, in: SessionCounter(path: configuration.sessionDirectory))
            print(
                localized(
                    "Vault recovered: it opens with your PIN again (unlocked for {duration}). Your recovery key "
                        + "still works; keep it offline.",
                    ["duration": DurationText.spoken(configuration.vaultTimeout)]))
        }
    }
}
