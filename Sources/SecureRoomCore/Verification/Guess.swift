/// One guess checked against a credential (step 2 of `PINVerifier.verify`): the master key
/// when the guess is the PIN, and the tag a wrong guess is remembered by.
struct Guess {
    /// The master key (docs/FORMAT.md §2) when the guess is the PIN; nil when it is not.
    let master: SecretBytes?
    /// The guess's tag in the lockout record: from its own argon2 output, and for a bound
    /// record keyed inside the TPM (FORMAT.md §2.1).
    let tag: [UInt8]
    /// Whether the TPM tested it and refused it: a failure on the chip's counter.
    let chipTested: Bool

    /// Runs argon2 for `pin` with the credential's salt and parameters, then, for a bound
    /// credential, the TPM: first the tag (which the chip does not count), then, unless
    /// `seen` (the current run's tags) shows the same wrong PIN was already tried, the
    /// unseal (which it counts when wrong). A repeated typo is not put to the chip again:
    /// its dictionary-attack counter is shared by every user and by disk encryption.
    init(_ pin: SecretBytes, for credential: CredentialRecord, pepper: Pepper, chip: TPMChip,
         seen: () throws -> [[UInt8]]) throws {
        guard let binding = credential.binding else {
            let master = try PINKeys.master(pin: pin, user: credential.user, salt: credential.salt, pepper: pepper,
                                            parameters: credential.parameters)
            tag = PINKeys.guessTag(master: master)
            self.master = Self.verified(master, credential)
            chipTested = false
            return
        }
        let material = try PINKeys.boundMaterial(pin: pin, user: credential.user, salt: credential.salt, pepper: pepper,
                                                 parameters: credential.parameters)
        (master, tag, chipTested) = try chip.withConnection { connection in
            let tag = try BoundKeys.guessTag(material, tagKey: binding.tagKey, connection: connection)
            if try seen().contains(tag) { return (nil, tag, false) }
            let master = try BoundKeys.master(material, binding: binding, connection: connection)
            return (master.flatMap { Self.verified($0, credential) }, tag, master == nil)
        }
    }

    /// `master` if it derives the credential's verifier (compared in constant time).
    private static func verified(_ master: SecretBytes, _ credential: CredentialRecord) -> SecretBytes? {
        credential.verifier.withUnsafeBytes { PINKeys.verifier(master: master).constantTimeEquals($0) } ? master : nil
    }
}
