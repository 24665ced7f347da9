// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import SecureRoomCore

/// "New PIN: " then "Retype new PIN: ", with the policy applied in between: what a PIN
/// change (`PINChange`) and a user creating their PIN (`EnrolmentOffer`) ask alike.
/// Each refusal is told to the user before it is thrown.
struct NewPINEntry {
    /// The two PINs typed differ.
    struct Mismatch: Error {}

    /// The call whose conversation asks.
    let call: ModuleCall
    /// The configured policy (digits, blocklist, constant steps).
    let policy: PINPolicy

    /// An entry with the configured blocklist.
    init(call: ModuleCall) throws {
        self.call = call
        policy = PINPolicy(blocklist: try Blocklist.load(call.configuration.blocklist))
    }

    /// One try. Throws `SecureRoomError.pinRejected` (policy), `malformedPIN` (not a
    /// PIN) or `Mismatch`, each after telling the user; conversation failures as they come.
    /// `refusing` may refuse a PIN the policy allows, with a reason (an expired PIN's own).
    func readOnce(refusing: (SecretBytes) -> String? = { _ in nil }) throws -> SecretBytes {
        let new = try call.promptPIN(localized("New PIN: "))
        let rejection = policy.rejections(of: new).first
        if let reason = rejection.map(\.description) ?? refusing(new) {
            let told = rejection?.localizedDescription ?? Localized.lookUp(reason)
            call.tell(localized("PIN rejected: {reason}.", ["reason": told]))
            throw SecureRoomError.pinRejected(reason)
        }
        let again = try call.promptPIN(localized("Retype new PIN: "))
        guard new.constantTimeEquals(again) else {
            call.tell(localized("PINs do not match."))
            throw Mismatch()
        }
        return new
    }

    /// Up to `tries` tries; nil if none gave an acceptable PIN typed twice alike.
    func read(tries: Int, refusing: (SecretBytes) -> String? = { _ in nil }) throws -> SecretBytes? {
        for _ in 0..<tries {
            do { return try readOnce(refusing: refusing) } catch SecureRoomError.pinRejected, SecureRoomError
                .malformedPIN, is Mismatch
            {
                continue
            }
        }
        return nil
    }
}
