// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc

/// Where a user's vault key stands in the root-only state, so that the vault tool can say
/// what happened and what to do next instead of asking for a PIN that cannot help. The
/// user learns this about their own account only (through secureroom-helper's
/// `vault-state`); it holds no key material.
public enum VaultState: Equatable, Sendable {
    /// SecureRoom is not set up: no state directory or pepper.
    case noState
    /// The user has no PIN; `recoverable` when a recovery record keeps a vault key
    /// (the PIN was removed by an administrator).
    case noPIN(recoverable: Bool)
    /// The user has a PIN but never set up a vault.
    case noVault
    /// The PIN opens the vault (the normal case).
    case pin
    /// Only the recovery key opens the vault (a PIN set by an administrator without it).
    case recoveryOnly
    /// `wipe_after` erased the PIN's vault key at `at` after `failures` failures.
    case erased(at: Int64, failures: Int)

    /// The state of `user`'s vault key in `store` (root only).
    public static func of(_ user: UserName, in store: StateStore) throws -> VaultState {
        do { _ = try store.pepper() } catch SecureRoomError.stateMissing {
            return .noState
        } catch SecureRoomError.system(_, _, let code) where code == ENOENT {
            return .noState
        }
        let recovery = try store.recovery(for: user) != nil
        guard let credential = try store.credential(for: user) else { return .noPIN(recoverable: recovery) }
        if credential.vaultKey != nil { return .pin }
        if let erased = credential.vaultErased { return .erased(at: erased.at, failures: erased.failures) }
        return recovery ? .recoveryOnly : .noVault
    }

    /// The words after `vault-state` on the helper's reply line.
    var words: String {
        switch self {
        case .noState: return "no-state"
        case .noPIN(let recoverable): return recoverable ? "no-pin recoverable" : "no-pin"
        case .noVault: return "no-vault"
        case .pin: return "pin"
        case .recoveryOnly: return "recovery-only"
        case .erased(let at, let failures): return "erased \(at) \(failures)"
        }
    }

    /// Parses `words`; nil if they are not a state.
    init?(words: Substring) {
        switch words.split(separator: " ", omittingEmptySubsequences: false) {
        case ["no-state"]: self = .noState
        case ["no-pin"]: self = .noPIN(recoverable: false)
        case ["no-pin", "recoverable"]: self = .noPIN(recoverable: true)
        case ["no-vault"]: self = .noVault
        case ["pin"]: self = .pin
        case ["recovery-only"]: self = .recoveryOnly
        case let parts where parts.count == 3 && parts[0] == "erased":
            guard let at = RecordText.decimal(parts[1], as: Int64.self),
                let failures = RecordText.decimal(parts[2], as: Int.self)
            else { return nil }
            self = .erased(at: at, failures: failures)
        default: return nil
        }
    }

    /// What the vault tool tells `user` when this state keeps the vault shut, with a
    /// command that works; nil for `.pin` (then the PIN is what is missing).
    public func explanation(for user: UserName) -> String? {
        switch self {
        case .pin:
            return nil
        case .noState:
            return localized("SecureRoom is not set up on this computer: an administrator runs 'sudo secureroom init'.")
        case .noPIN(recoverable: false):
            return localized(
                "You have no PIN, so there is no vault to open. Create a PIN with 'secureroom enrol', "
                    + "then a vault with 'secureroom-vault init'.")
        case .noPIN(recoverable: true):
            return localized(
                "Your PIN was removed by an administrator. Your vault's key is kept: create a PIN with 'secureroom "
                    + "enrol --replace', then 'secureroom-vault recover' and your recovery key make it open with your "
                    + "PIN again.")
        case .noVault:
            return localized("You have no vault yet: create it with 'secureroom-vault init'.")
        case .recoveryOnly:
            return localized(
                "Your vault does not open with your current PIN (it was set anew without your recovery key, by "
                    + "'secureroom enrol --replace' or an administrator); 'secureroom-vault recover' and your "
                    + "recovery key make it open with your PIN again.")
        case .erased(let at, let failures):
            return localized(
                "Your vault key was erased at {time} after {count} failed PIN attempt (wipe_after); your secrets "
                    + "are kept and 'secureroom-vault recover' and your recovery key make it open with your PIN again.",
                plural: "Your vault key was erased at {time} after {count} failed PIN attempts (wipe_after); your "
                    + "secrets are kept and 'secureroom-vault recover' and your recovery key make it open with your "
                    + "PIN again.",
                count: failures, ["time": ISO8601.utc(at)])
        }
    }
}
