import ArgumentParser
import Glibc
import SecureRoomCommandSupport
import SecureRoomCore
import SecureRoomToolSupport

/// Errors as one line on standard error, prefixed "secureroom: ".
let failureReport = FailureReport(program: "secureroom")

/// Writes `message` to standard error, prefixed with the program name.
func printError(_ message: String) { failureReport.printError(message) }

/// Runs `body`, turning SecureRoom and PIN-entry errors into a message on standard
/// error and exit status 1. Usage errors and explicit exit codes pass through.
func reportingFailures(_ body: () throws -> Void) throws { try failureReport.run(body) }

/// Refuses to go on unless the effective uid is root.
func requireRoot(_ action: String) throws {
    guard geteuid() == 0 else {
        printError("\(action) must be run as root")
        throw ExitStatus.failure
    }
}

/// Validates a user name and checks that the account exists.
func existingUser(_ name: String) throws -> UserName {
    let user = try UserName(name)
    guard user.accountID() != nil else {
        printError("no such user \(UserName.quoted(name))")
        throw ExitStatus.failure
    }
    return user
}

/// Reads a new PIN: twice on the PIN pad (they must match), once from a pipe.
/// Applies the policy unless `allowWeak`.
func readNewPIN(_ configuration: Configuration, fromStdin: Bool, allowWeak: Bool,
                prompt: String = "New PIN: ") throws -> SecretBytes {
    let policy = PINPolicy(blocklist: try Blocklist.load(configuration.blocklist))
    let pin = try PINEntry.read(prompt: prompt, format: configuration.format, forceLine: fromStdin)
    let reasons = policy.rejections(of: pin)
    if !reasons.isEmpty && !allowWeak {
        printError("PIN rejected: \(reasons.map(\.description).joined(separator: "; ")) (root may use --allow-weak)")
        throw ExitStatus.failure
    }
    if !fromStdin && isatty(STDIN_FILENO) == 1 {
        let again = try PINEntry.read(prompt: "Retype PIN: ", format: configuration.format)
        guard pin.constantTimeEquals(again) else {
            printError("PINs do not match")
            throw ExitStatus.failure
        }
    }
    return pin
}
