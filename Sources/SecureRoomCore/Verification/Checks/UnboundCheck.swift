// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// A PIN not bound to a TPM: one argon2 run (docs/FORMAT.md §2) with the credential's salt
/// and parameters; the master's verifier is compared with the record's.
struct UnboundCheck: PINCheck {
    /// The credential checked against.
    let credential: CredentialRecord
    /// The state's pepper.
    let pepper: Pepper

    func test(_ pin: SecretBytes, seen: () throws -> [[UInt8]]) throws -> Guess {
        let master = try PINKeys.master(
            pin: pin, user: credential.user, salt: credential.salt, pepper: pepper,
            parameters: credential.parameters)
        return Guess(
            master: Self.verified(master, credential), tag: PINKeys.guessTag(master: master), chipTested: false)
    }
}
