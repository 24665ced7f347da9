// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Glibc
import SecureRoomCommandLine
import SecureRoomCore
import SecureRoomProgramSupport
import SecureRoomSecretService
import SecureRoomVault

/// Errors as one line on standard error, prefixed "secureroom-vault: "; the vault's own
/// errors with their exit status (locked 3, no such secret 4).
let failureReport = FailureReport(program: "secureroom-vault") { error in
    if let failure = error as? BusFailure { return (failure.message, ExitStatus.failure) }
    guard let error = error as? VaultError else { return nil }
    switch error {
    case .locked: return (error.localizedDescription, ExitStatus.locked)
    case .notFound: return (error.localizedDescription, ExitStatus.notFound)
    default: return (error.localizedDescription, ExitStatus.failure)
    }
}

/// Writes `message` to standard error, prefixed with the program name.
func printError(_ message: String) { failureReport.printError(message) }

/// Runs `body`, turning errors into one line on standard error and the documented exit
/// status. Usage errors and explicit exit codes pass through.
func reportingFailures(_ body: () throws -> Void) throws { try failureReport.run(body) }

/// Writes bytes to standard output, all of them.
func writeOutput(_ bytes: UnsafeRawBufferPointer) throws {
    try FileDescriptor.writeAll(STDOUT_FILENO, bytes) {
        SecureRoomError.system(operation: "write", path: "standard output", errno: errno)
    }
}

/// The options in /etc/security/secureroom.conf (the PIN's length, vault_timeout).
func systemConfiguration() throws -> SecureRoomCore.Configuration {
    try SecureRoomCore.Configuration.load(arguments: [], reader: ConfigurationFile.read)
}

/// Where `user`'s vault key stands: read here as root, asked of secureroom-helper
/// otherwise (the caller's own account only; nothing is counted).
func vaultState(of user: UserName, _ configuration: Configuration) throws -> VaultState {
    LocalPINAuthority.isAvailable
        ? try VaultState.of(user, in: StateStore(configuration: configuration))
        : try HelperClient(configuration: configuration).vaultState(of: user)
}

/// Says why a PIN check through `PINAuthority` did not succeed, with its exit status
/// (`init`, `recover`).
func reportFailedCheck(_ outcome: PINVerifier.Outcome, user: UserName) throws -> Never {
    switch outcome {
    case .notEnrolled:
        printError(
            localized(
                "{user} has no PIN; create one with 'secureroom enrol' (or ask an administrator)",
                ["user": user.rawValue]))
        throw ExitStatus.failure
    case .locked:
        printError(Messages.text(for: outcome) ?? localized("your PIN is locked (too many failed attempts)"))
        throw ExitStatus.locked
    case .incorrect, .repeatedIncorrect:
        printError(Messages.text(for: outcome) ?? localized("Incorrect PIN."))
        throw ExitStatus.wrongPIN
    case .success:
        printError(localized("the vault key was not returned; see the system log"))
        throw ExitStatus.failure
    }
}
