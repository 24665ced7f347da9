// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc

/// Checks and changes PINs on the state directly (root only).
public struct LocalPINAuthority: PINAuthority {
    /// The state.
    public let store: StateStore
    /// The time source.
    public let clock: any Clock

    /// Whether this process may use it: the state is root's (effective uid 0). The one
    /// place that decides between the state and the helper.
    public static var isAvailable: Bool { geteuid() == 0 }

    /// See `PINAuthority.readsRecords`: true.
    public var readsRecords: Bool { true }

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
        try requirePasswordFirst(of: user)
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

    /// The one place `password_first=` is applied, first of every check, for every name
    /// alike (whether it has a PIN is not told): the password since boot.
    private func requirePasswordFirst(of user: UserName) throws {
        try PasswordProof(path: store.configuration.sessionDirectory).requirePassword(
            of: user, under: store.configuration.passwordFirst, at: clock.now())
    }

    /// See `PINAuthority.status(of:)`.
    public func status(of user: UserName) throws -> LockoutStatus? {
        try PINVerifier(store: store, clock: clock).status(of: user)
    }

    /// See `PINAuthority.standing(of:)`.
    public func standing(of user: UserName) throws -> PINStanding {
        guard let credential = try store.credential(for: user) else { return .none }
        return .enrolled(vaultKey: credential.vaultKey != nil)
    }

    /// See `PINAuthority.checkWithoutPIN`.
    public func checkWithoutPIN(
        _ user: UserName, prompted: Bool, pin: () throws -> SecretBytes
    ) throws -> PINVerifier.Outcome {
        let verifier = PINVerifier(store: store, clock: clock)
        if prompted { return .incorrect(try verifier.decoyStatus(of: user)) }
        try requirePasswordFirst(of: user)
        let status = try verifier.decoyStatus(of: user)
        guard status.allowsAttempt else { return .locked(status) }
        try verifier.requireCheckable(for: user)
        return try verifier.verifyDecoy(try pin(), for: user)
    }

    /// See `PINAuthority.passwordAccepted(by:)`.
    public func passwordAccepted(by user: UserName) throws -> PasswordAcceptance {
        var proofNotRecorded: String?
        do {
            try PasswordProof(path: store.configuration.sessionDirectory).record(for: user, at: clock.now())
        } catch  where store.configuration.passwordFirst == .off {
            // Only a line that names the option may fail for want of the proof.
            proofNotRecorded = "\(error)"
        }
        guard let status = try status(of: user), status.failures > 0 else {
            return PasswordAcceptance(lifted: nil, proofNotRecorded: proofNotRecorded)
        }
        try PINAdministration(store: store, clock: clock).resetLockout(for: user)
        return PasswordAcceptance(lifted: status, proofNotRecorded: proofNotRecorded)
    }

    /// See `PINAuthority.acknowledgeVaultErasure`.
    public func acknowledgeVaultErasure(_ erasure: CredentialRecord.VaultErasure, for user: UserName) throws {
        try PINAdministration(store: store, clock: clock).acknowledgeVaultErasure(erasure, for: user)
    }

    /// See `PINAuthority.expiredPINProof`.
    public func expiredPINProof(_ pin: SecretBytes, for user: UserName) throws -> SecretBytes? {
        try ExpiredPINProof.make(pin, for: user, store: store)
    }

    /// See `PINAuthority.replaceExpiredPIN`.
    public func replaceExpiredPIN(
        of user: UserName, vaultKey: SecretBytes?, proof: SecretBytes?,
        newPIN: (_ refusing: @escaping (SecretBytes) -> String?) throws -> SecretBytes?
    ) throws -> ExpiredPINReplacement {
        guard let credential = try store.credential(for: user), credential.mustChange != nil else { return .notExpired }
        guard credential.vaultKey == nil || vaultKey != nil else { return .vaultKeyNotUnlocked }
        let store = store
        let refusal: (SecretBytes) -> String? = { candidate in
            guard let proof, (try? ExpiredPINProof.matches(candidate, proof, for: user, store: store)) == true
            else { return nil }
            let translate = Translation.english  // for the log; told through Localized.lookUp
            return translate("it is the PIN you were given; choose your own")
        }
        guard let new = try newPIN(refusal) else { return .abandoned }
        try PINAdministration(store: store, clock: clock).setPIN(
            new, for: user, replacing: credential, vaultKey: vaultKey)
        return .replaced
    }

    /// See `PINAuthority.enrolmentDeclined(by:)`.
    public func enrolmentDeclined(by user: UserName) throws -> OfferRecord? { try store.offer(for: user) }

    /// See `PINAuthority.declineEnrolment(by:)`.
    public func declineEnrolment(by user: UserName) throws {
        try PINAdministration(store: store, clock: clock).declineOffer(for: user)
    }

    /// See `PINAuthority.enrolAtLogin`.
    public func enrolAtLogin(
        _ pin: SecretBytes, for user: UserName, vault: Bool
    ) throws -> (vaultKey: SecretBytes, recoveryKey: RecoveryKey)? {
        try PINAdministration(store: store, clock: clock).enrol(pin, for: user, vault: vault)
    }
}
