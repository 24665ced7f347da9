// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// What a new PIN must not be (docs/DESIGN.md §5): on the blocklist, or a constant step
/// (1111, 1234, 1357, 9876, 7890 — each digit the previous plus a fixed step, mod 10).
public struct PINPolicy: Sendable {
    /// Why a PIN is refused.
    public enum Rejection: Equatable, Sendable, TranslatableDescription {
        /// The PIN is on the blocklist.
        case blocklisted
        /// Each digit is the previous one plus `step` (mod 10).
        case constantStep(Int)

        /// The reason in the user's language.
        public var localizedDescription: String { text(.user) }

        /// A short reason.
        public func text(_ translate: Translation) -> String {
            switch self {
            case .blocklisted: return translate("on the list of commonly chosen PINs")
            case .constantStep(0): return translate("repeats one digit")
            case .constantStep(let step):
                return translate("a sequence (constant step of {step})", ["step": String(step > 5 ? step - 10 : step)])
            }
        }
    }

    /// The blocked PINs.
    public let blocklist: Blocklist

    /// A policy with `blocklist`.
    public init(blocklist: Blocklist) { self.blocklist = blocklist }

    /// Why `new` cannot replace `current`, or nil. Not a matter of taste that
    /// `--allow-weak` could lift: a PIN handed out by an administrator must not survive
    /// its change, and a change that keeps the PIN would only reset its tally
    /// (docs/SECURITY.md §6). Constant time.
    public static func refusal(replacing current: SecretBytes, with new: SecretBytes) -> String? {
        let translate = Translation.english  // English, for the log; shown through Localized.lookUp
        return new.constantTimeEquals(current) ? translate("it is the current PIN; choose a different one") : nil
    }

    /// The reasons `pin` (validated digits) is refused; empty when it is acceptable.
    public func rejections(of pin: SecretBytes) -> [Rejection] {
        pin.withUnsafeBytes { bytes in
            var reasons: [Rejection] = []
            if blocklist.contains(bytes) { reasons.append(.blocklisted) }
            if bytes.count >= 2 {
                let step = (Int(bytes[1]) - Int(bytes[0]) + 10) % 10
                let constant = (1..<bytes.count).allSatisfy { (Int(bytes[$0]) - Int(bytes[$0 - 1]) + 10) % 10 == step }
                if constant { reasons.append(.constantStep(step)) }
            }
            return reasons
        }
    }
}
