import ArgumentParser
import FoundationEssentials
import Glibc
import SecureRoomCore
import SecureRoomToolSupport
import SecureRoomVault

/// Exit statuses (documented in `secureroom-vault --help`).
enum Exit {
    /// The operation failed.
    static let failure = ExitCode(1)
    /// A wrong PIN.
    static let wrongPIN = ExitCode(2)
    /// The vault (or the PIN) is locked.
    static let locked = ExitCode(3)
    /// No secret with that title.
    static let notFound = ExitCode(4)
}

/// Writes `message` to standard error, prefixed with the program name.
func printError(_ message: String) { ToolOutput.printError(program: "secureroom-vault", message) }

/// Runs `body`, turning errors into one line on standard error and the documented exit
/// status. Usage errors and explicit exit codes pass through.
func reportingFailures(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as VaultError {
        printError(error.description)
        switch error {
        case .locked: throw Exit.locked
        case .notFound: throw Exit.notFound
        default: throw Exit.failure
        }
    } catch {
        guard let message = ToolOutput.message(for: error) else { throw error }
        printError(message)
        throw Exit.failure
    }
}

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

/// `value` as the JSON the tool prints: pretty, keys sorted, slashes unescaped.
func jsonText<T: Encodable>(_ value: T) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}
