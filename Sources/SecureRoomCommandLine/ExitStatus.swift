// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser

/// The exit statuses of `secureroom` and `secureroom-vault`, one list for both (their
/// `--help` and man pages document them): 0 success, 64 a usage error (ArgumentParser's).
public enum ExitStatus {
    /// The operation failed; the reason is on standard error.
    public static let failure = ExitCode(1)
    /// A wrong PIN.
    public static let wrongPIN = ExitCode(2)
    /// The PIN is delayed or disabled, or the vault is locked.
    public static let locked = ExitCode(3)
    /// No secret with that title (`secureroom-vault`).
    public static let notFound = ExitCode(4)
    /// Another Secret Service provider owns org.freedesktop.secrets (`secureroom-vault serve`).
    public static let nameOwned = ExitCode(5)
    /// No vault file, so nothing to serve (`secureroom-vault serve`).
    public static let noVault = ExitCode(6)
    /// The user cancelled the PIN prompt (`secureroom-vault unlock --pinentry`).
    public static let cancelled = ExitCode(7)
}
