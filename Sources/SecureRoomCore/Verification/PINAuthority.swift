// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc

/// Where a PIN is checked or changed: in this process when it may read the root-only
/// state (`LocalPINAuthority`), or by the setuid `secureroom-helper` for anyone else
/// (`HelperClient`). The PAM module and the tools pick one with `pinAuthority(for:)` and
/// then run the same code for both. It is the PAM module's one door to the records: every
/// step of the module that reads or writes them goes through a method here, and each
/// method has one path in the core (docs/DESIGN.md §6).
///
/// Both ask for PINs through closures, and only when a check can happen: a user without
/// a PIN, or whose PIN is delayed or disabled, is answered without prompting. What the
/// helper does not do (it answers a user's own checks and nothing else) each method of
/// `HelperClient` says: mostly nothing, as a PAM host without root could do nothing there.
public protocol PINAuthority {
    /// Whether the records are read and written in this process (root), rather than by
    /// secureroom-helper. A check made here has its outcome logged here with its
    /// MESSAGE_ID; through the helper the helper's own entry has it.
    var readsRecords: Bool { get }

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

    /// Where `user`'s tally stands, read without a lock (`PINVerifier.status(of:)`); nil
    /// without a PIN, and through the helper (the module's account step reads nothing
    /// there). No PIN is asked for and nothing is counted.
    func status(of user: UserName) throws -> LockoutStatus?

    /// Whether `user` has a PIN, from the credential alone; `.unknown` through the helper.
    func standing(of user: UserName) throws -> PINStanding

    /// `nopin=fail` for a name without a PIN (or an unknown one): the prompt, the argon2
    /// run and writes, the count, the delays and the lockout a wrong PIN gets, kept on the
    /// name's decoy (`PINVerifier.verifyDecoy`); `password_first=` as for `check`.
    /// `prompted`: `check` already asked for the PIN and counted it on the decoy (its
    /// outcome was `.notEnrolled`); the decoy's standing is answered. Never `.success`.
    /// Through the helper the decoys are out of reach: one argon2 run, and what a first
    /// wrong PIN gets (`PINVerifier.decoyWithoutState`).
    func checkWithoutPIN(
        _ user: UserName, prompted: Bool, pin: () throws -> SecretBytes
    ) throws -> PINVerifier.Outcome

    /// The primary authentication (the password) accepted `user` (`authsucc`): records
    /// the proof `password_first=` asks for, and lifts the PIN's lockout (pam_faillock's
    /// pattern). A proof that cannot be written throws only under `password_first=`.
    /// Through the helper: nothing (a user cannot reset their own tally).
    func passwordAccepted(by user: UserName) throws -> PasswordAcceptance

    /// Forgets the note of a `wipe_after` erasure once `user` was told of it. Through the
    /// helper: nothing (its outcomes never carry one).
    func acknowledgeVaultErasure(_ erasure: CredentialRecord.VaultErasure, for user: UserName) throws

    /// What `auth` keeps of an expired PIN it accepted (`ExpiredPINProof`), so that the
    /// account step can refuse it as its own replacement; nil through the helper (which
    /// never reports a PIN that must be changed).
    func expiredPINProof(_ pin: SecretBytes, for user: UserName) throws -> SecretBytes?

    /// Replaces `user`'s PIN that must be changed, proven moments ago in the same
    /// transaction: `newPIN` is asked for it, given the refusal of the expired PIN itself
    /// (made from `proof`), and returns nil to give up; the vault key that PIN unlocked
    /// (`vaultKey`) is wrapped under the new one. Written only if the credential is still
    /// the one that was expired. `.notExpired` through the helper.
    func replaceExpiredPIN(
        of user: UserName, vaultKey: SecretBytes?, proof: SecretBytes?,
        newPIN: (_ refusing: @escaping (SecretBytes) -> String?) throws -> SecretBytes?
    ) throws -> ExpiredPINReplacement

    /// When `user` last declined the enrolment offer (`enrol=offer`); nil if never, and
    /// through the helper.
    func enrolmentDeclined(by user: UserName) throws -> OfferRecord?

    /// Notes that `user` declined the enrolment offer now. Through the helper: nothing.
    func declineEnrolment(by user: UserName) throws

    /// A user without a PIN creates one at login (`enrol=`): set only if the user still
    /// has none (`PINAdministration.enrol`). With `vault`, the new vault key and the
    /// recovery key to show once. Through the helper it is refused (`helperRefused`): the
    /// module offers it only as root, and `secureroom enrol` uses the helper's own request.
    func enrolAtLogin(
        _ pin: SecretBytes, for user: UserName, vault: Bool
    ) throws -> (vaultKey: SecretBytes, recoveryKey: RecoveryKey)?
}

/// The authority for a caller with this process's privileges: the state itself when
/// the effective uid is root, otherwise the helper named by `helper=`.
public func pinAuthority(for store: StateStore) -> any PINAuthority {
    pinAuthority(reachable: LocalPINAuthority.isAvailable ? store : nil, configuration: store.configuration)
}

/// The authority once the caller has decided: `store` when it may be used, the helper
/// named by `helper=` when it is nil (the PAM module, which has no store without root).
public func pinAuthority(reachable store: StateStore?, configuration: Configuration) -> any PINAuthority {
    store.map { LocalPINAuthority(store: $0) } ?? HelperClient(configuration: configuration)
}

/// What a check through a `PINAuthority` comes to (`PINVerifier.Outcome`), as its callers
/// name it.
public typealias PINOutcome = PINVerifier.Outcome

/// What a right PIN tells its caller besides "yes" (`PINVerifier.Success`).
public typealias PINSuccess = PINVerifier.Success
