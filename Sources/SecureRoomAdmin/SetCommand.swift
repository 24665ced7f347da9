// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import SecureRoomCore
import SecureRoomProgramSupport

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

            A user who set up a vault (secureroom-vault init) keeps it through a PIN they \
            change themselves; a PIN set here cannot open it unless the user's recovery key \
            is given with --recovery-key (typed first, without echo; with --stdin, the first \
            line). Without it, set refuses unless --force: the vault then stays closed to the \
            new PIN, and the recovery key can still restore it later.

            --expire hands out a temporary PIN: right after its first use the account step \
            asks the user for a new PIN, and refuses the login without one (the \
            pam-auth-update profile's account line, only_expired; see pam/README.md).
            """)

    @Argument(help: "The account to enrol.")
    var user: String

    @Flag(help: "Read the PIN as one line from standard input.")
    var stdin = false

    @Flag(help: "Accept a PIN the policy rejects.")
    var allowWeak = false

    @Flag(help: "Keep the user's vault: read their recovery key and wrap the vault key under the new PIN.")
    var recoveryKey = false

    @Flag(help: "Set the PIN even though the user's vault will not open with it.")
    var force = false

    @Flag(help: "The user must change this PIN the first time they use it (at login, su or sudo).")
    var expire = false

    @OptionGroup var state: StateOptions

    func run() throws {
        try requireRoot("set")
        try reportingFailures {
            let user = try existingUser(user)
            let store = try state.store()
            _ = try store.pepper()
            try refuseCorruptRecords(of: user, in: store)
            let administration = PINAdministration(store: store)
            var vaultKey: SecretBytes?
            if recoveryKey {
                let typed = try HiddenLine.read(prompt: "Recovery key of \(user): ", limit: 128)
                vaultKey = try administration.recoverVaultKey(
                    for: user, with: try typed.withUnsafeBytes { try RecoveryKey(typed: $0) })
            } else if try store.credential(for: user)?.vaultKey != nil || store.recovery(for: user) != nil, !force {
                throw SecureRoomError.vaultWouldBeLost(user: user.rawValue)
            }
            let pin = try readNewPIN(store.configuration, fromStdin: stdin, allowWeak: allowWeak, mayAllowWeak: true)
            let left = try administration.setPIN(pin, for: user, vaultKey: vaultKey, mustChange: expire)
            SystemLog.open(identity: "secureroom")
            let vaultNote =
                (vaultKey != nil ? ", vault kept with the recovery key" : force ? ", vault left closed (--force)" : "")
                + (expire ? ", to be changed at its first use" : "")
            SystemLog.notice("PIN set for \(user)\(allowWeak ? " (policy overridden)" : "")\(vaultNote)")
            print(
                "PIN set for \(user)\(vaultKey != nil ? "; the vault opens with it" : "")"
                    + "\(expire ? "; it must be changed at its first use" : "")."
            )
            if vaultKey == nil && force {
                print(
                    "The vault of \(user) does not open with this PIN; their recovery key can restore it "
                        + "(--recovery-key)."
                )
            }
            if left {
                printError(
                    "note: the old PIN's counter stays on the hardened TPM, charged to no user; "
                        + "'secureroom tpm prune' frees it")
            }
            if try store.credential(for: user)?.isBoundToItsCounter == true {
                warnIfChipNotHardened(store.configuration)
            } else if store.configuration.tpm == .auto, TPMChip(store.configuration).answers() {
                printError(
                    "note: the PIN is not bound to the TPM, which has no room for another PIN's counter "
                        + "('secureroom tpm status'): a copy of the state and the pepper can find it")
            }
        }
    }
}
