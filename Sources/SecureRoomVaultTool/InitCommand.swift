// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Glibc
import SecureRoomCommandLine
import SecureRoomCore
import SecureRoomProgramSupport
import SecureRoomVault

/// `secureroom-vault init`: set up the vault's keys and file.
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Set up your vault: a data key wrapped under your PIN, a recovery key, and the vault file.",
        discussion: """
            Asks for your PIN (checked as at login; a wrong one counts). Then a random data \
            key is made and stored twice by the system: wrapped under your PIN, and under a \
            recovery key printed here once. Write the recovery key down and keep it offline: \
            if your PIN no longer opens the vault (forgotten and replaced, or set anew by an \
            administrator), 'secureroom-vault recover' and the recovery key make it open again. \
            The vault is left unlocked.

            --replace starts over with new keys when your old vault key is gone (after an \
            administrator set a PIN with --force, or wipe_after erased it). The old vault file, \
            if any, is moved aside to FILE.replaced-TIME; its secrets stay unreadable unless \
            the old recovery key is used first.
            """)

    @Flag(help: "Replace an existing vault key and recovery key (the old vault becomes unreadable).")
    var replace = false

    @Flag(help: "Read the PIN as a line from standard input.")
    var stdin = false

    @OptionGroup var vault: VaultOptions

    func run() throws {
        try reportingFailures {
            let keyring = try VaultKeyring.current()
            let user = keyring.user
            let path = try vault.path()
            let configuration = try systemConfiguration()
            let store = StateStore(configuration: configuration)
            // Everything that could fail after the keys are made is checked first: the
            // recovery key must not be made and then never shown.
            try VaultLocation.prepareDirectory(for: path)
            if !replace && access(path, F_OK) == 0 {
                throw VaultError.invalid("\(path) exists already (an older vault?); move it away, or use --replace")
            }
            let (outcome, recoveryKey) = try pinAuthority(for: store).setUpVault(user, replace: replace) {
                try PINEntry.read(prompt: "PIN: ", format: configuration.format, forceLine: stdin)
            }
            guard case .success(let success) = outcome, let vaultKey = success.vaultKey, let recoveryKey else {
                try reportFailedCheck(outcome, user: user)
            }
            print(Messages.recoveryKeyShownOnce(recoveryKey, user: user) + "\n")
            if replace { try moveAside(path) }
            _ = try VaultStore(path: path, dataKey: vaultKey, create: true)
            try keyring.storeFollowingSessions(
                vaultKey, timeout: configuration.vaultTimeout, in: SessionCounter(path: configuration.sessionDirectory))
            print(
                localized(
                    "Vault set up: {path} (unlocked for {duration}).",
                    ["path": path, "duration": DurationText.spoken(configuration.vaultTimeout)]))
        }
    }

    /// Moves an old vault file (and its WAL files) out of the way of a new vault.
    private func moveAside(_ path: String) throws {
        let suffix = ".replaced-\(time(nil))"
        for extra in ["", "-wal", "-shm"] where access(path + extra, F_OK) == 0 {
            guard rename(path + extra, path + suffix + extra) == 0 else {
                throw SecureRoomError.system(operation: "rename", path: path + extra, errno: errno)
            }
        }
        if access(path + suffix, F_OK) == 0 { print(localized("Old vault moved to {path}.", ["path": path + suffix])) }
    }
}
