import ArgumentParser
import SecureRoomCore
import SecureRoomToolSupport

/// `secureroom reset USER`: clear a lockout, or remove the PIN.
struct ResetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Clear a user's failure count and lockout (root only).",
        discussion: """
        The only way, besides a successful login, to lift a disabled PIN. With \
        --remove-pin the user's PIN is deleted: the PAM module then treats the user as \
        not enrolled (nopin=). A user with a vault keeps its recovery record, so \
        'secureroom set USER --recovery-key' can bring the vault back later; removing the \
        PIN of such a user needs --force.
        """)

    @Argument(help: "The account.")
    var user: String

    @Flag(help: "Delete the user's PIN and failure record.")
    var removePin = false

    @Flag(help: "With --remove-pin: remove it even though the user's vault then needs the recovery key.")
    var force = false

    @OptionGroup var state: StateOptions

    func run() throws {
        try requireRoot("reset")
        try reportingFailures {
            let user = try UserName(user)
            let store = try state.store()
            SystemLog.open(identity: "secureroom")
            if removePin {
                if try store.credential(for: user)?.vaultKey != nil, !force {
                    throw SecureRoomError.vaultWouldBeLost(user: user.rawValue)
                }
                try Enrollment(store: store).removePIN(for: user)
                SystemLog.notice("PIN removed for \(user)")
                print("PIN removed for \(user).")
                return
            }
            guard try store.credential(for: user) != nil else { throw SecureRoomError.notEnrolled(user: user.rawValue) }
            let before = try store.lockout(for: user).counted
            try Enrollment(store: store).resetLockout(for: user)
            SystemLog.notice("lockout reset for \(user) (was \(before) consecutive failures)")
            print("Lockout cleared for \(user) (was \(before) consecutive failures).")
        }
    }
}
