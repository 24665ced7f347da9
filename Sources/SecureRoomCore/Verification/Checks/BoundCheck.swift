// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// A PIN bound to a TPM (docs/FORMAT.md §2.1, DESIGN.md §11): argon2 gives the local half
/// and the authorization; the chip first computes the guess's tag (not counted: the tag
/// key has no authorization value), then, unless that tag is already in the run, unseals
/// the record's secret under the authorization, which it counts when wrong.
struct BoundCheck: PINCheck {
    /// The credential checked against; its `binding` is not nil.
    let credential: CredentialRecord
    /// The record's sealed object and tag key.
    let binding: TPMBinding
    /// The state's pepper.
    let pepper: Pepper
    /// The chip the record is bound to.
    let chip: TPMChip

    func test(_ pin: SecretBytes, seen: () throws -> [[UInt8]]) throws -> Guess {
        let material = try PINKeys.boundMaterial(
            pin: pin, user: credential.user, salt: credential.salt, pepper: pepper,
            parameters: credential.parameters)
        return try chip.withConnection { connection in
            let tag = try BoundKeys.guessTag(material, tagKey: binding.tagKey, connection: connection)
            if try seen().contains(tag) { return Guess(master: nil, tag: tag, chipTested: false) }
            let master = try BoundKeys.master(material, binding: binding, connection: connection)
            return Guess(master: master.flatMap { Self.verified($0, credential) }, tag: tag, chipTested: master == nil)
        }
    }
}
