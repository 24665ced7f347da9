// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc

/// Where a PIN is checked or changed: in this process when it may read the root-only
/// state (`LocalPINAuthority`), or by the setuid `secureroom-helper` for anyone else
/// (`HelperClient`). The PAM module and the admin tool pick one with `pinAuthority(for:)` and
/// then run the same code for both.
///
/// Both ask for PINs through closures, and only when a check can happen: a user without
/// a PIN, or whose PIN is delayed or disabled, is answered without prompting.
public protocol PINAuthority {
    /// Checks `user`'s PIN under the lockout rules, calling `pin` for it only if the
    /// user has a PIN that may be tried now.
    func check(_ user: UserName, pin: () throws -> SecretBytes) throws -> PINVerifier.Outcome

    /// Changes `user`'s PIN: `current` is checked exactly like `check` (it counts toward
    /// the lockout), then `new`, given the current PIN as typed (it applies the policy and
    /// `PINPolicy.refusal(replacing:with:)`, and may throw to abandon the change), becomes
    /// the PIN. A new PIN equal to the current one is refused here too (`pinRejected`).
    /// The PIN changed only if the outcome is `.success`.
    func change(
        _ user: UserName, current: () throws -> SecretBytes,
        new: (_ current: SecretBytes) throws -> SecretBytes
    ) throws -> PINVerifier.Outcome

    /// Sets up `user`'s vault key: the PIN is checked exactly like `check`, then a new
    /// data key is wrapped under it and under a new recovery key. On `.success` the
    /// outcome carries the new data key and the recovery key is returned (show it once).
    /// `replace` discards an existing vault key or recovery record (the old vault's
    /// secrets become unreadable); without it either one is `vaultKeyExists`.
    func setUpVault(
        _ user: UserName, replace: Bool,
        pin: () throws -> SecretBytes
    ) throws -> (outcome: PINVerifier.Outcome, recoveryKey: RecoveryKey?)

    /// Brings back `user`'s vault with their recovery key (`secureroom-vault recover`):
    /// only when a check can happen, `recoveryKey` is asked first and must open the
    /// recovery record (else `wrongRecoveryKey`, and no PIN is checked or counted; through
    /// the helper the PIN is sent with the key); then the
    /// PIN is checked exactly like `check`, and the vault key is wrapped under it. On
    /// `.success` the outcome carries the vault key. The recovery record stays: the key
    /// keeps working. A vault that already opens with the PIN is `vaultKeyExists`.
    func recoverVault(
        _ user: UserName, recoveryKey: () throws -> RecoveryKey,
        pin: () throws -> SecretBytes
    ) throws -> PINVerifier.Outcome
}

/// The authority for a caller with this process's privileges: the state itself when
/// the effective uid is root, otherwise the helper named by `helper=`.
public func pinAuthority(for store: StateStore) -> any PINAuthority {
    pinAuthority(reachable: LocalPINAuthority.isAvailable ? store : nil, configuration: store.configuration)
}

/// The authority once the caller has decided: `store` when it may be used, the helper
/// named by `helper=` when it is nil (the PAM module, whose `ModuleCall.store` is nil
/// without root).
public func pinAuthority(reachable store: StateStore?, configuration: Configuration) -> any PINAuthority {
    store.map { LocalPINAuthority(store: $0) } ?? HelperClient(path: configuration.helperPath)
}

/// Checks and changes PINs on the state directly (root only).
public struct LocalPINAuthority: PINAuthority {
    /// The state.
    public let store: StateStore
    /// The time source.
    public let clock: any Clock

    /// Whether this process may use it: the state is root's (effective uid 0). The one
    /// place that decides between the state and the helper.
    public static var isAvailable: Bool { geteuid() == 0 }

    /// An authority over `store`.
    public init(store: StateStore, clock: any Clock = SystemClock()) {
        self.store = store
        self.clock = clock
    }

    /// See `PINAuthority.check`. The first look at the tally takes no lock; `verify`
    /// looks again under the lock, and that answer is the one that counts.
    public func check(_ user: UserName, pin: () throws -> SecretBytes) throws -> PINVerifier.Outcome {
        try check(user, pin: pin, whileLocked: nil)
    }

    /// `whileLocked` set: a change, which may replace a record below the argon2 floor (the
    /// new PIN gets the configured cost; docs/SECURITY.md §1.4).
    private func check(
        _ user: UserName, pin: () throws -> SecretBytes,
        whileLocked: ((inout CredentialRecord, SecretBytes) throws -> Void)?
    ) throws -> PINVerifier.Outcome {
        // First, for every name alike (whether it has a PIN is not told): the password
        // since boot, when `password_first=` asks for it.
        try PasswordProof(path: store.configuration.sessionDirectory).requirePassword(
            of: user, under: store.configuration.passwordFirst, at: clock.now())
        let verifier = PINVerifier(store: store, clock: clock)
        guard let status = try verifier.status(of: user) else { return .notEnrolled }
        if let reason = AccountState.refusal(for: user) {
            throw SecureRoomError.accountUnavailable(user: user.rawValue, reason: reason)
        }
        guard status.allowsAttempt else { return .locked(status) }
        try verifier.requireCheckable(for: user, replacing: whileLocked != nil)
        return try verifier.verify(try pin(), for: user, whileLocked: whileLocked)
    }

    /// See `PINAuthority.change`. The new PIN replaces the credential that was checked,
    /// or nothing: if the PIN was set, removed or changed meanwhile (the user may take
    /// their time over `new`), `changedConcurrently` is thrown and nothing is written.
    public func change(
        _ user: UserName, current: () throws -> SecretBytes,
        new: (_ current: SecretBytes) throws -> SecretBytes
    ) throws -> PINVerifier.Outcome {
        // The credential verified, as read under the lock: the one the new PIN replaces.
        var checked: CredentialRecord?
        // The current PIN as typed, to refuse it as its own replacement (wiped when freed).
        var typed: SecretBytes?
        let outcome = try check(
            user,
            pin: {
                let pin = try current()
                typed = pin.withUnsafeBytes { SecretBytes(copying: $0) }
                return pin
            }
        ) { credential, _ in checked = credential }
        if case .success(let success) = outcome, let checked {
            let vaultKey = success.vaultKey
            // A stored vault key that did not unwrap is damage: refuse rather than drop it.
            if checked.vaultKey != nil && vaultKey == nil {
                throw SecureRoomError.corruptRecord(
                    path: "\(user.rawValue).credential", reason: "vault-key does not unwrap with the right PIN")
            }
            guard let typed else { throw SecureRoomError.pinRejected("no current PIN") }
            let replacement = try new(typed)
            if let reason = PINPolicy.refusal(replacing: typed, with: replacement) {
                throw SecureRoomError.pinRejected(reason)
            }
            try PINAdministration(store: store, clock: clock).setPIN(
                replacement, for: user, replacing: checked, vaultKey: vaultKey)
        }
        return outcome
    }

    /// See `PINAuthority.setUpVault`. Refuses before asking for the PIN when the vault key
    /// exists; checks again under the lock, where the keys are written.
    public func setUpVault(
        _ user: UserName, replace: Bool,
        pin: () throws -> SecretBytes
    ) throws -> (outcome: PINVerifier.Outcome, recoveryKey: RecoveryKey?) {
        let administration = PINAdministration(store: store, clock: clock)
        if !replace, let credential = try store.credential(for: user) {
            try administration.refuseExistingVault(credential)
        }
        var recoveryKey: RecoveryKey?
        let outcome = try check(user, pin: pin) { credential, master in
            recoveryKey = try administration.setUpVault(&credential, master: master, replace: replace)
        }
        return (outcome, recoveryKey)
    }

    /// See `PINAuthority.recoverVault`. The vault key is written under the lock of the
    /// check, into the credential that was verified.
    public func recoverVault(
        _ user: UserName, recoveryKey: () throws -> RecoveryKey,
        pin: () throws -> SecretBytes
    ) throws -> PINVerifier.Outcome {
        let administration = PINAdministration(store: store, clock: clock)
        if try store.credential(for: user)?.vaultKey != nil {
            throw SecureRoomError.vaultKeyExists(user: user.rawValue, recoverable: false)
        }
        var vaultKey: SecretBytes?
        return try check(
            user,
            pin: {
                vaultKey = try administration.recoverVaultKey(for: user, with: try recoveryKey())
                return try pin()
            }
        ) { credential, master in
            guard let vaultKey else { throw SecureRoomError.wrongRecoveryKey(user: user.rawValue) }
            try administration.restoreVault(&credential, master: master, vaultKey: vaultKey)
        }
    }
}
