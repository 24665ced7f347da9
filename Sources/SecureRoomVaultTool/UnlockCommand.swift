import ArgumentParser
import CPAMClient
import SecureRoomCommandSupport
import SecureRoomCore
import SecureRoomToolSupport
import SecureRoomVault

/// `secureroom-vault unlock`.
struct UnlockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Unlock the vault with your PIN, through the PAM service secureroom-vault.",
        discussion: """
        Asks for your PIN on the PIN pad and checks it through PAM (/etc/pam.d/secureroom-vault): \
        the same lockout as at login applies, and a wrong PIN counts. On success the \
        vault's key is in your kernel keyring for vault_timeout (default 15 minutes). \
        With --stdin the PIN is read as one line from standard input.
        """)

    @Flag(help: "Read the PIN as a line from standard input.")
    var stdin = false

    func run() throws {
        try reportingFailures {
            let keyring = try VaultKeyring.current()
            let configuration = try systemConfiguration()
            let code = PAMUnlock(format: configuration.format, fromStdin: stdin).run(for: keyring.user)
            switch code {
            case PAM_SUCCESS: break
            case PAM_AUTH_ERR:
                printError("wrong PIN")
                throw ExitStatus.wrongPIN
            case PAM_MAXTRIES:
                printError("your PIN is locked (too many failed attempts)")
                throw ExitStatus.locked
            default:
                printError("PAM service \(PAMUnlock.service): \(PAMUnlock.describe(code)) (details in the system log)")
                throw ExitStatus.failure
            }
            guard let (_, secondsLeft) = try keyring.load() else {
                printError("PIN accepted, but you have no vault key yet; run 'secureroom-vault init'")
                throw ExitStatus.failure
            }
            print("Vault unlocked for \(DurationText.spoken(secondsLeft)).")
        }
    }
}
