// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// A name without a PIN, or an unknown one, under `nopin=fail` (docs/DESIGN.md §4): the
/// work of a wrong PIN of an enrolled user, on the decoy slot the name hashes to, so that
/// who has a PIN cannot be told from outside. argon2 with the decoy's salt and the
/// configured parameters; once any PIN is bound to the TPM (`TPMDecoy`), also a bound
/// PIN's chip work. It never succeeds.
struct DecoyCheck: PINCheck {
    /// The name tried.
    let user: UserName
    /// The decoy's salt (`PINKeys.decoy`).
    let salt: [UInt8]
    /// The state's pepper.
    let pepper: Pepper
    /// The configured argon2 parameters.
    let parameters: KDFParameters
    /// The decoys' TPM objects and the chip that holds them, once a PIN is bound.
    let chip: (decoy: TPMDecoy, chip: TPMChip)?

    func test(_ pin: SecretBytes, seen: () throws -> [[UInt8]]) throws -> Guess {
        guard let chip else {
            let master = try PINKeys.master(pin: pin, user: user, salt: salt, pepper: pepper, parameters: parameters)
            return Guess(master: nil, tag: PINKeys.guessTag(master: master), chipTested: false)
        }
        let material = try PINKeys.boundMaterial(
            pin: pin, user: user, salt: salt, pepper: pepper, parameters: parameters)
        let (tag, standIn) = try BoundKeys.decoyWork(material, decoy: chip.decoy, on: chip.chip, seen: seen)
        return Guess(master: nil, tag: tag, chipTested: standIn)
    }
}
