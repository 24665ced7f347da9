import ArgumentParser
import SecureRoomCore
import SecureRoomToolSupport

/// `secureroom set USER`: give a user a new PIN.
struct SetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set a user's PIN (root only); clears the user's lockout.",
        discussion: """
        On a terminal the PIN is typed twice on the PIN pad. With --stdin (or when standard \
        input is not a terminal) one line is read from standard input, for provisioning \
        scripts: printf '%s\\n' "$PIN" | secureroom set alice --stdin.

        The PIN must have exactly the configured number of digits (digits=, default 4) and \
        pass the policy: not on the blocklist (blocklist=), not a constant step such as \
        1111, 1234, 1357 or 9876. --allow-weak skips the policy.
        """)

    @Argument(help: "The account to enrol.")
    var user: String

    @Flag(help: "Read the PIN as one line from standard input.")
    var stdin = false

    @Flag(help: "Accept a PIN the policy rejects.")
    var allowWeak = false

    @OptionGroup var state: StateOptions

    func run() throws {
        try requireRoot("set")
        try reportingFailures {
            let user = try existingUser(user)
            let store = try state.store()
            _ = try store.pepper()
            let pin = try readNewPIN(store.configuration, fromStdin: stdin, allowWeak: allowWeak)
            try Enrollment(store: store).setPIN(pin, for: user)
            SystemLog.open(identity: "secureroom")
            SystemLog.notice("PIN set for \(user)\(allowWeak ? " (policy overridden)" : "")")
            print("PIN set for \(user).")
        }
    }
}
