// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Glibc
import SecureRoomCommandLine
import SecureRoomCore
import SecureRoomProgramSupport
import SecureRoomSecretService
import SecureRoomVault

/// `secureroom-vault serve`: the vault as the Secret Service of the user's session.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract:
            "Provide the vault to applications as the Secret Service (org.freedesktop.secrets) of your session bus.",
        discussion: """
            Runs in the foreground: what the systemd user unit secureroom-secrets.service and \
            the D-Bus activation file start when an application first asks for \
            org.freedesktop.secrets. Applications that use libsecret (secret-tool, browsers, \
            git's credential helper) then keep their secrets in this vault, as items with a \
            label and attributes; 'list' and 'get' see the same items by title. If another \
            provider (gnome-keyring, KeePassXC) owns the name, serve says which and exits \
            with status 5: it never takes the name over. Without a vault file it exits with \
            status 6 and leaves the name to others.

            The vault must be unlocked (by logging in with your PIN, or 'secureroom-vault \
            unlock'): serve reads the key from your kernel keyring at each request, so \
            when the vault locks, the next request is refused with \
            org.freedesktop.Secret.Error.IsLocked. An application that asks to unlock, or \
            searches while the vault is locked (as secret-tool lookup and Python's keyring \
            do), gets the PIN prompt: serve runs 'secureroom-vault unlock --pinentry \
            PROGRAM' (--pinentry, default /usr/bin/pinentry, the system's choice of \
            pinentry-gnome3, -gtk2, -qt, -curses or -tty), so the PIN goes through PAM with \
            the same lockout and messages as at login, never over the bus. A search waits \
            up to 20 s for it and is then answered; an unlock prompt waits --prompt-timeout \
            seconds, also for 'secureroom-vault unlock' typed elsewhere, and is dismissed \
            when the PIN prompt is cancelled. With --pinentry none serve asks for nothing and \
            a locked vault's searches are refused at once. Events are logged on standard \
            error (the journal, under systemd), never a secret, a label or an attribute.
            """)

    @Option(
        help: ArgumentHelp(
            "How long an unlock prompt waits for 'secureroom-vault unlock' (1 to 3600).", valueName: "seconds"))
    var promptTimeout: Int64 = 60

    @Option(
        help: ArgumentHelp(
            "The pinentry that asks for the PIN when an application needs the locked vault, or none.",
            valueName: "program"))
    var pinentry = "/usr/bin/pinentry"

    @OptionGroup var vault: VaultOptions

    func validate() throws {
        guard (1...3600).contains(promptTimeout) else {
            throw ValidationError("--prompt-timeout must be 1 to 3600 seconds (was \(promptTimeout))")
        }
    }

    func run() throws {
        try reportingFailures {
            let path = try vault.path()
            // Without a vault, the name is left to whichever provider the user does use.
            guard access(path, F_OK) == 0 else {
                printError(
                    "no vault at \(path); run 'secureroom-vault init' first (serve does not take "
                        + "\(SecretService.busName) without one)")
                throw ExitStatus.noVault
            }
            let keyring = try VaultKeyring.current()
            // Read once: each request then costs the keyring and the vault, not the config file.
            let sessions = try systemConfiguration().sessionDirectory
            let access = SecretService.Vault(
                path: path,
                unlockedStore: {
                    guard let (key, _) = try keyring.load(checkingSessionsIn: sessions) else { return nil }
                    return try VaultStore(
                        path: path, dataKey: key, create: false,
                        busyTimeout: SecretService.busyTimeoutMilliseconds)
                },
                lock: { _ = try keyring.remove() })
            let program = pinentry
            let service = SecretService(
                vault: access, promptTimeout: promptTimeout,
                startUnlock: pinentry == "none" ? nil : { Self.startUnlock(pinentry: program) }
            ) {
                ToolOutput.writeError("secureroom-vault serve: \($0)\n")
            }
            if case let .nameOwned(owner) = try service.run() {
                printError("\(SecretService.busName) is already provided by \(owner); not starting")
                throw ExitStatus.nameOwned
            }
        }
    }

    /// Starts `secureroom-vault unlock --pinentry PROGRAM` (this very program, in this
    /// environment: the display, $GPG_TTY) with standard input and output on /dev/null and
    /// standard error shared (the journal); its pid, or nil if it could not start.
    static func startUnlock(pinentry: String) -> pid_t? {
        let spawned = ChildProcess.spawn(
            ["secureroom-vault", "unlock", "--pinentry", pinentry], executable: "/proc/self/exe",
            standard: [
                STDIN_FILENO: .file("/dev/null", flags: O_RDONLY), STDOUT_FILENO: .file("/dev/null", flags: O_WRONLY),
            ])
        guard case .success(let pid) = spawned else { return nil }
        return pid
    }
}
