// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

@testable import SecureRoomCore
@testable import TPMESAPI

/// What someone holding a copy of the state directory, pepper included, but not the TPM
/// can do with one user's records: try every 4-digit PIN with the derivation docs/FORMAT.md
/// documents (§2, §2.1), against the credential's verifier and the lockout record's tags of
/// wrong guesses.
struct OfflineAttack {
    /// What the search found.
    struct Result {
        /// The PIN, if a candidate derived the verifier.
        var pin: String?
        /// Candidates whose tag is among the wrong guesses recorded.
        var wrongGuesses: [String] = []
        /// Candidates tried.
        var candidates = 0
        /// How long it took.
        var seconds = 0.0
    }

    let credential: CredentialRecord
    let pepper: Pepper
    let seenTags: [[UInt8]]

    /// Reads `user`'s credential and lockout records and the pepper from a copy of `state`.
    init(state: String, user: String) throws {
        func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
        let credentialPath = "\(state)/users/\(user).credential"
        let lockoutPath = "\(state)/users/\(user).lockout"
        credential = try CredentialRecord(parsing: try bytes(credentialPath), path: credentialPath)
        pepper = try Pepper(parsing: try bytes("\(state)/pepper"), path: "pepper")
        seenTags = try LockoutRecord(parsing: try bytes(lockoutPath), path: lockoutPath).seenGuesses
    }

    /// Tries all 10,000 PINs. For a bound record, the best the documented derivation allows
    /// without the chip: the local half with the secret unknown (tried as zeros), and the
    /// tag input without the chip's key (tried as the tag itself).
    func search() throws -> Result {
        var result = Result()
        let start = Date()
        for number in 0..<10_000 {
            let candidate = String(format: "%04d", number)
            let pin = Array(candidate.utf8).withUnsafeBytes { SecretBytes(copying: $0) }
            result.candidates += 1
            let (verifier, tag): ([UInt8], [UInt8])
            if credential.binding == nil {
                let master = try PINKeys.master(
                    pin: pin, user: credential.user, salt: credential.salt, pepper: pepper,
                    parameters: credential.parameters)
                verifier = PINKeys.verifier(master: master).withUnsafeBytes { Array($0) }
                tag = PINKeys.guessTag(master: master)
            } else {
                let material = try PINKeys.boundMaterial(
                    pin: pin, user: credential.user, salt: credential.salt,
                    pepper: pepper, parameters: credential.parameters)
                let master = BoundKeys.master(material, secret: SecretBytes(count: 32))
                verifier = PINKeys.verifier(master: master).withUnsafeBytes { Array($0) }
                let local = material.withUnsafeBytes {
                    SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0.prefix(32)))
                }
                tag = SealedKeys.derive(local, info: "secureroom/2 guess").withUnsafeBytes {
                    Array($0.prefix(PINKeys.guessTagLength))
                }
            }
            if verifier == credential.verifier { result.pin = candidate }
            if seenTags.contains(tag) { result.wrongGuesses.append(candidate) }
        }
        result.seconds = Date().timeIntervalSince(start)
        return result
    }
}
