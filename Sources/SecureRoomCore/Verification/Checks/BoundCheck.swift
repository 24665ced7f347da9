// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// A PIN bound to the TPM (docs/FORMAT.md §2.1, DESIGN.md §11): argon2 gives the local half
/// and the authorization, and the chip releases the record's secret only for the right one.
///
/// * Version 3, the PIN's own counter: the chip unseals the secret only after the PIN's
///   index accepted the authorization, and counts a wrong one there. A wrong guess leaves
///   no tag: every one is counted, on the chip and in the tally (a tag the chip computed
///   without counting would let anyone holding the state test candidates against the
///   run's wrong guesses, docs/SECURITY.md §1.2). A PIN whose index reached its limit
///   throws `TPMProblem.pinSpent`.
/// * Version 2, until the PIN's next success binds it again: the chip first computes the
///   guess's tag (not counted: the tag key has no authorization value), then, unless that
///   tag is already in the run, unseals under the authorization, which the chip's
///   dictionary-attack counter counts when wrong (`chipTested`).
struct BoundCheck: PINCheck {
    /// The credential checked against.
    let credential: CredentialRecord
    /// The record's binding.
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
            var tag: [UInt8]?
            if case .authValue(let shared) = binding {
                let computed = try BoundKeys.guessTag(material, tagKey: shared.tagKey, connection: connection)
                if try seen().contains(computed) { return Guess(master: nil, tag: computed, chipTested: false) }
                tag = computed
            }
            let master = try BoundKeys.master(material, binding: binding, connection: connection)
            return Guess(
                master: master.flatMap { Self.verified($0, credential) }, tag: tag,
                chipTested: master == nil && tag != nil)
        }
    }
}
