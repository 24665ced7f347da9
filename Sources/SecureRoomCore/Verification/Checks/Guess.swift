// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// What step 2 of a check learned about one guess (docs/DESIGN.md §4): the master key when
/// the guess is the PIN, the tag a wrong guess is remembered by, and whether the TPM tested
/// it and refused it.
struct Guess {
    /// The master key (docs/FORMAT.md §2) when the guess is the PIN; nil when it is not.
    let master: SecretBytes?
    /// The guess's tag in the lockout record: from its own argon2 output, and for a
    /// version 2 bound record keyed inside the TPM (FORMAT.md §2.1); nil for a PIN bound
    /// to its own counter, whose wrong guesses are all counted.
    let tag: [UInt8]?
    /// Whether the TPM tested it and refused it (or, for a decoy, did the stand-in work):
    /// a failure on the chip's counter (`TPMShare`).
    let chipTested: Bool
}

/// One kind of PIN check: step 2 of the lockout protocol (`LockoutProtocol`), which runs
/// holding no lock. Steps 1 and 3 are the same for every kind; what differs is here, one
/// file each: `UnboundCheck` (argon2), `BoundCheck` (argon2 and the TPM), `DecoyCheck`
/// (a name without a PIN, `nopin=fail`: the same work, never a success).
protocol PINCheck {
    /// Tests `pin`. `seen` reads the current run's tags: a wrong guess already among them
    /// is not put to the chip again (its counter is shared by every user and by disk
    /// encryption).
    func test(_ pin: SecretBytes, seen: () throws -> [[UInt8]]) throws -> Guess
}

extension PINCheck {
    /// `master` if it derives `credential`'s verifier (compared in constant time).
    static func verified(_ master: SecretBytes, _ credential: CredentialRecord) -> SecretBytes? {
        credential.verifier.withUnsafeBytes { PINKeys.verifier(master: master).constantTimeEquals($0) } ? master : nil
    }
}
