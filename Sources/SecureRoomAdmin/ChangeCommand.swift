import ArgumentParser
import Glibc
import SecureRoomCore
import SecureRoomToolSupport

/// `secureroom change [USER]`: change a PIN, knowing the current one.
struct ChangeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "change",
        abstract: "Change a PIN: the current PIN, then the new one twice.",
        discussion: """
        The current PIN is checked exactly as at login: a wrong one counts toward the \
        lockout, and a locked PIN cannot be changed. USER defaults to the invoking user. \
        With --stdin, three lines are read: current PIN, new PIN (no confirmation).
        """)

    @Argument(help: "The account (default: the invoking user).")
    var user: String?

    @Flag(help: "Read the PINs as lines from standard input.")
    var stdin = false

    @Flag(help: "Accept a new PIN the policy rejects (root only).")
    var allowWeak = false

    @OptionGroup var state: StateOptions

    func run() throws {
        try requireRoot("change")
        try reportingFailures {
            let name = try user ?? invokingUser()
            let user = try existingUser(name)
            let store = try state.store()
            let configuration = store.configuration
            let current = try PINEntry.read(prompt: "Current PIN: ", format: configuration.format, forceLine: stdin)
            let outcome = try Enrollment(store: store).changePIN(for: user, current: current) {
                try readNewPIN(configuration, fromStdin: stdin, allowWeak: allowWeak)
            }
            SystemLog.open(identity: "secureroom")
            switch outcome {
            case .success:
                SystemLog.notice("PIN changed for \(user)")
                print("PIN changed for \(user).")
            case .notEnrolled:
                throw SecureRoomError.notEnrolled(user: user.rawValue)
            case .locked:
                printError(Messages.text(for: outcome) ?? "locked")
                throw Exit.locked
            case .incorrect, .repeatedIncorrect:
                SystemLog.warning("PIN change for \(user): wrong current PIN")
                printError(Messages.text(for: outcome) ?? "Incorrect PIN.")
                throw Exit.wrongPIN
            }
        }
    }

    private func invokingUser() throws -> String {
        guard let entry = getpwuid(getuid()) else { throw SecureRoomError.invalidUserName("uid \(getuid())") }
        return String(cString: entry.pointee.pw_name)
    }
}
