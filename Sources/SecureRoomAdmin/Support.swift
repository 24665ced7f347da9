// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Glibc
import SecureRoomCommandLine
import SecureRoomCore
import SecureRoomProgramSupport

/// Errors as one line on standard error, prefixed "secureroom: ".
let failureReport = FailureReport(program: "secureroom")

/// Writes `message` to standard error, prefixed with the program name.
func printError(_ message: String) { failureReport.printError(message) }

/// Runs `body`, turning SecureRoom and PIN-entry errors into a message on standard
/// error and exit status 1. Usage errors and explicit exit codes pass through.
func reportingFailures(_ body: () throws -> Void) throws { try failureReport.run(body) }

/// The account that runs the tool (its real uid's name).
func invokingUser() throws -> String {
    guard let name = UserName.accountName(of: getuid()) else {
        throw SecureRoomError.invalidUserName("uid \(getuid())")
    }
    return name
}

/// Says `message` and ends the command with exit status 1.
func refuse(_ message: String) throws -> Never {
    printError(message)
    throw ExitStatus.failure
}

/// Refuses to go on unless the effective uid is root, in one line that says why and
/// what to type instead ("secureroom set needs root: ...; run: sudo secureroom set").
func requireRoot(_ action: String) throws {
    guard geteuid() == 0 else {
        printError(
            "'secureroom \(action)' needs root: the PIN records are readable by root only; "
                + "run it with sudo (users change their own PIN with 'secureroom change')")
        throw ExitStatus.failure
    }
}

/// Validates a user name and checks that the account exists.
func existingUser(_ name: String) throws -> UserName {
    let user = try UserName(name)
    guard user.accountID() != nil else {
        printError(localized("no such user {name}", ["name": UserName.quoted(name)]))
        throw ExitStatus.failure
    }
    return user
}

/// Reads a new PIN: on a terminal, typed twice on the PIN pad, asked again (up to three
/// tries) when the two differ or the policy refuses it; from a pipe, one line, and a
/// refusal is final. Applies the policy unless `allowWeak`, and `refusing` (a reason to
/// refuse a PIN the policy allows, such as the current PIN) always. `mayAllowWeak`: the
/// caller could have passed --allow-weak (root, in a command that has it); only then does
/// a refusal name it.
func readNewPIN(
    _ configuration: Configuration, fromStdin: Bool, allowWeak: Bool, mayAllowWeak: Bool,
    prompt: String = localized("New PIN: "), refusing: (SecretBytes) -> String? = { _ in nil }
) throws -> SecretBytes {
    let policy = PINPolicy(blocklist: try Blocklist.load(configuration.blocklist))
    let interactive = !fromStdin && isatty(STDIN_FILENO) == 1
    let tries = interactive ? 3 : 1
    for attempt in 1...tries {
        let last = attempt == tries
        let pin = try PINEntry.read(prompt: prompt, format: configuration.format, forceLine: fromStdin)
        let reasons = policy.rejections(of: pin)
        if !reasons.isEmpty && !allowWeak {
            let told = reasons.map(\.localizedDescription).joined(separator: "; ")
            printError(
                !last
                    ? localized("PIN rejected: {reason}; choose another", ["reason": told])
                    : mayAllowWeak
                        ? localized("PIN rejected: {reason} (--allow-weak accepts it)", ["reason": told])
                        : localized("PIN rejected: {reason}", ["reason": told]))
            if last { throw ExitStatus.failure }
            continue
        }
        if let reason = refusing(pin) {
            let told = Localized.lookUp(reason)
            printError(
                last
                    ? localized("PIN rejected: {reason}; nothing was changed", ["reason": told])
                    : localized("PIN rejected: {reason}", ["reason": told]))
            if last { throw ExitStatus.failure }
            continue
        }
        guard interactive else { return pin }
        let again = try PINEntry.read(prompt: localized("Retype PIN: "), format: configuration.format)
        if pin.constantTimeEquals(again) { return pin }
        printError(
            last
                ? localized("PINs do not match; nothing was changed")
                : localized("PINs do not match; type the new PIN again"))
    }
    throw ExitStatus.failure
}

/// Stops with the reason and the way out when a record of `user` cannot be read: a new
/// PIN must not be written over evidence, nor fail half-way (`reset` moves it aside).
func refuseCorruptRecords(of user: UserName, in store: StateStore) throws {
    do {
        _ = try store.credential(for: user)
        _ = try store.lockout(for: user)
    } catch let error as SecureRoomError {
        guard isRecordProblem(error, of: user) else { throw error }
        printError(
            localized(
                "{problem}; 'secureroom reset {user}' moves it aside, then run this again",
                ["problem": error.localizedDescription, "user": user.rawValue]))
        throw ExitStatus.failure
    }
}

/// Whether `error` is about one of `user`'s own record files (corrupt, or refused as
/// insecure: another owner, a group or other bit, a link, not a regular file), which
/// `reset` can move aside; not about the state directory as a whole.
func isRecordProblem(_ error: SecureRoomError, of user: UserName) -> Bool {
    switch error {
    case .corruptRecord(let path, _), .insecure(let path, _):
        return StateStore.RecordKind.allCases.contains { path.hasSuffix("/\(user.rawValue).\($0.rawValue)") }
    default:
        return false
    }
}

/// Tells the administrator, on standard error and (`log`) in syslog, when the TPM PINs are
/// bound to answers and is not hardened (docs/SECURITY.md §1.2).
func warnIfChipNotHardened(_ configuration: Configuration, log: Bool = true) {
    guard let state = try? ChipHardening.state(of: TPMChip(configuration)), !state.hardened else { return }
    printError(chipNotHardened)
    guard log else { return }
    SystemLog.open(identity: "secureroom")
    SystemLog.warning("the TPM is not hardened: root can still out-guess bound PINs ('secureroom tpm harden')")
}

/// What an administrator is told while the chip is not hardened (`tpm status`, `set`, `init`).
let chipNotHardened =
    "warning: the TPM is not hardened: root can remove a bound PIN's counter and guess the PIN without limit; "
    + "'secureroom tpm harden' closes that (it shows a TPM recovery secret to keep offline)"

/// The TPM recovery secret `secureroom tpm harden` showed, typed without echo or one line
/// on standard input (`reset --tpm-secret`, `tpm prune`).
func readTPMRecoverySecret() throws -> TPMRecoverySecret {
    let typed = try HiddenLine.read(prompt: "TPM recovery secret: ", limit: 128)
    guard let secret = TPMRecoverySecret(typed: typed) else {
        throw ValidationError("a TPM recovery secret is hex: and 64 hex digits, as 'secureroom tpm harden' showed it")
    }
    return secret
}
