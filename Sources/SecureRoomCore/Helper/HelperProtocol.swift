// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// The conversation between `secureroom-helper` and its callers (docs/SECURITY.md §3).
///
///     secureroom-helper verify USER        secureroom-helper change USER
///     secureroom-helper setup-vault USER   secureroom-helper replace-vault USER
///     secureroom-helper enrol USER         secureroom-helper enrol-replace USER
///     secureroom-helper vault-state USER   secureroom-helper pin-state USER
///     secureroom-helper recover-vault USER
///
/// `enrol` first runs the PAM service `secureroom-enrol` for USER (the password, never
/// the PIN), relaying its conversation as `HelperConversation` lines, each question
/// answered by one line; only when that succeeded does `ready` ask for the new PIN.
///
/// standard input and output are one pipe or socket pair. The helper answers with one line:
/// `ready` if the PIN(s) should follow, or a final reply (`HelperReply`) at once when no
/// check can happen (no PIN, locked, refused). After `ready` the caller writes the PIN,
/// newline (for `change`: current PIN, newline, new PIN, newline; for `recover-vault`:
/// the recovery key, newline, the PIN, newline) and the helper answers
/// with a final reply. The helper then waits for end of input before it exits, so the
/// caller decides when to reap it. The exit status repeats the final reply's kind.
public enum HelperProtocol {
    /// Where `scripts/install` puts the helper (`helper=` overrides it).
    public static let defaultPath = "/usr/sbin/secureroom-helper"
    /// The PAM service the helper runs to check a user's password before they create or
    /// replace their own PIN (shipped as pam/secureroom-enrol). pam_secureroom ignores
    /// every call in it: a PIN is never proof for creating a PIN.
    public static let enrolService = "secureroom-enrol"
    /// The line that asks for the PIN(s).
    public static let readyLine = "ready"
    /// How long the helper waits, after `ready`, for the PIN line(s) to arrive whole: a
    /// minute for a person at the caller's prompt, then it replies `refused` and exits
    /// (nothing counted), so a caller that goes quiet never keeps a setuid process.
    public static let pinAnswerSeconds = 60
    /// The longest the helper lives, whatever its caller does (a full pipe it writes to,
    /// a stopped reader): at this alarm the kernel ends it (SIGALRM's default action).
    /// Longer than any request can take: a password conversation of a few answers of
    /// `HelperConversation.answerSeconds` each, the PIN, argon2, the reply.
    public static let lifetimeSeconds: UInt32 = 600
    /// The longest reply line a caller reads.
    public static let maximumReplyLength = 512

    /// The closed set of requests.
    public enum Request: String, Sendable, CaseIterable {
        /// Check the caller's own PIN.
        case verify
        /// Change the caller's own PIN (current, then new).
        case change
        /// Check the caller's own PIN and give it a new vault key and recovery key.
        case setupVault = "setup-vault"
        /// As `setupVault`, discarding an existing vault key and recovery record.
        case replaceVault = "replace-vault"
        /// Prove the account's password, then create the caller's first PIN.
        case enrol
        /// Prove the account's password, then replace the caller's PIN (a forgotten one).
        case enrolReplace = "enrol-replace"
        /// Where the caller's own vault key stands (`VaultState`); no PIN is read.
        case vaultState = "vault-state"
        /// Where the caller's own PIN stands (`PINState`); no PIN is read.
        case pinState = "pin-state"
        /// Check the caller's recovery key, then their PIN, and wrap the vault key under the PIN.
        case recoverVault = "recover-vault"
    }

    /// The helper's exit statuses (documented in README "HELPER" and docs/SECURITY.md §3.2).
    public enum ExitStatus: Int32, Sendable {
        /// Right PIN (for `change`: and the new PIN is set).
        case success = 0
        /// The state could not be used; details are in the system log.
        case failure = 1
        /// Wrong PIN (counted, or a repeat of one already counted).
        case wrongPIN = 2
        /// Delayed or disabled: refused without reading a PIN.
        case locked = 3
        /// The caller has no PIN.
        case notEnrolled = 4
        /// The request itself was refused (usage, another account, a terminal on stdin).
        case refused = 5
        /// A PIN of the wrong form, or (for `change`) a new PIN the policy refuses.
        case unacceptablePIN = 6
        /// The PIN is bound to a TPM that could not check it (gone, locked out, another
        /// chip): nothing was counted.
        case tpmUnavailable = 7
        /// `enrol`: the password (the PAM service secureroom-enrol) was not accepted.
        case denied = 8
        /// The caller's records stayed locked by another process past the patience (a
        /// stalled holder, docs/DESIGN.md §4): nothing more was counted.
        case busy = 9
    }
}

/// The helper's final answer to one request.
public enum HelperReply {
    /// The check's outcome. On the wire `success` is followed by `HelperSecrets`' words;
    /// `line` renders the public part only.
    case checked(PINVerifier.Outcome)
    /// A PIN of the wrong form, or a new PIN the policy refuses; nothing was counted or changed.
    case rejected(String)
    /// The request was refused; nothing was read or counted.
    case refused(String)
    /// The helper could not use the state.
    case failed
    /// The PIN's TPM did not do its part; nothing was counted.
    case tpm(TPMProblem)
    /// `enrol`: the password was not accepted (PAM's reason); nothing was changed.
    case denied(String)
    /// `vault-state`: the caller's vault key state.
    case vaultState(VaultState)
    /// `pin-state`: the caller's PIN state.
    case pinState(PINState)
    /// The caller's records stayed locked by another process; nothing more was counted.
    case busy
    /// Refused before the PIN was asked: no password login since boot (`password_first=`).
    case passwordFirst

    /// The exit status that goes with this reply.
    public var exitStatus: HelperProtocol.ExitStatus {
        switch self {
        case .checked(.success): return .success
        case .checked(.incorrect), .checked(.repeatedIncorrect): return .wrongPIN
        case .checked(.locked): return .locked
        case .checked(.notEnrolled): return .notEnrolled
        case .rejected: return .unacceptablePIN
        case .refused, .passwordFirst: return .refused
        case .failed: return .failure
        case .tpm: return .tpmUnavailable
        case .denied: return .denied
        case .busy: return .busy
        case .vaultState, .pinState: return .success
        }
    }

    /// The reply as one line (no newline). Reasons are reduced to printable ASCII.
    public var line: String {
        switch self {
        case .checked(.success): return "success"
        case .checked(.incorrect(let status, _)): return "incorrect " + Self.encode(status)
        case .checked(.repeatedIncorrect(let status)): return "repeated " + Self.encode(status)
        case .checked(.locked(let status)): return "locked " + Self.encode(status)
        case .checked(.notEnrolled): return "not-enrolled"
        case .rejected(let reason): return "rejected " + Self.printable(reason)
        case .refused(let reason): return "refused " + Self.printable(reason)
        case .failed: return "error"
        case .busy: return "busy"
        case .passwordFirst: return "password-first"
        case .tpm(.lockedOut(let seconds)): return "tpm locked-out \(seconds)"
        case .tpm(.shareSpent(let seconds)): return "tpm share-spent \(seconds)"
        case .tpm(.unreachable): return "tpm unreachable"
        case .tpm(.otherChip): return "tpm other-chip"
        case .tpm(.pinSpent): return "tpm pin-spent"
        case .tpm(.full): return "tpm full"
        case .tpm(.pruneNeeded): return "tpm prune-needed"
        case .tpm(.bootChanged): return "tpm boot-changed"
        case .tpm(.failed): return "tpm failed"
        case .denied(let reason): return "denied " + Self.printable(reason)
        case .vaultState(let state): return "vault-state " + state.words
        case .pinState(let state): return "pin-state " + state.words
        }
    }

    /// Parses a reply line; nil if it is not one.
    public init?(line: Substring) {
        let words = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        let rest = words.count > 1 ? words[1] : ""
        switch (words.first ?? "", words.count) {
        case ("success", 1): self = .checked(.success(.init(vaultKey: nil)))
        case ("not-enrolled", 1): self = .checked(.notEnrolled)
        case ("error", 1): self = .failed
        case ("busy", 1): self = .busy
        case ("password-first", 1): self = .passwordFirst
        case ("incorrect", 2):
            guard let status = Self.decode(rest) else { return nil }
            self = .checked(.incorrect(status))
        case ("repeated", 2):
            guard let status = Self.decode(rest) else { return nil }
            self = .checked(.repeatedIncorrect(status))
        case ("locked", 2):
            guard let status = Self.decode(rest) else { return nil }
            self = .checked(.locked(status))
        case ("rejected", 2): self = .rejected(Self.printable(rest))
        case ("refused", 2): self = .refused(Self.printable(rest))
        case ("denied", 2): self = .denied(Self.printable(rest))
        case ("vault-state", 2):
            guard let state = VaultState(words: rest) else { return nil }
            self = .vaultState(state)
        case ("pin-state", 2):
            guard let state = PINState(words: rest) else { return nil }
            self = .pinState(state)
        case ("tpm", 2):
            let detail = "reported by secureroom-helper; see the system log"
            switch rest.split(separator: " ") {
            case ["unreachable"]: self = .tpm(.unreachable(detail))
            case ["other-chip"]: self = .tpm(.otherChip)
            case ["pin-spent"]: self = .tpm(.pinSpent)
            case ["full"]: self = .tpm(.full)
            case ["prune-needed"]: self = .tpm(.pruneNeeded)
            case ["boot-changed"]: self = .tpm(.bootChanged)
            case ["failed"]: self = .tpm(.failed(detail))
            case let words where words.count == 2 && (words[0] == "locked-out" || words[0] == "share-spent"):
                guard let seconds = RecordText.decimal(words[1], as: Int.self) else { return nil }
                self = .tpm(words[0] == "locked-out" ? .lockedOut(seconds: seconds) : .shareSpent(seconds: seconds))
            default: return nil
            }
        default: return nil
        }
    }

    /// `open FAILURES LEFT NEXT-ATTEMPTS NEXT-DELAY` (0 0 for no next delay),
    /// `delayed SECONDS FAILURES`, or `disabled FAILURES`.
    static func encode(_ status: LockoutStatus) -> String {
        switch status {
        case let .open(failures, next, left):
            return "open \(failures) \(left) \(next?.attempts ?? 0) \(next?.delay ?? 0)"
        case let .delayed(seconds, failures): return "delayed \(seconds) \(failures)"
        case let .disabled(failures): return "disabled \(failures)"
        }
    }

    static func decode(_ text: Substring) -> LockoutStatus? {
        let words = text.split(separator: " ", omittingEmptySubsequences: false)
        let numbers = words.dropFirst().map { RecordText.decimal($0, as: Int.self) }
        guard !numbers.contains(where: { $0 == nil }) else { return nil }
        let values = numbers.compactMap { $0 }
        switch (words.first ?? "", values.count) {
        case ("open", 4):
            let next = values[2] > 0 ? NextDelay(attempts: values[2], delay: Int64(values[3])) : nil
            return .open(failures: values[0], untilDelay: next, untilDisabled: values[1])
        case ("delayed", 2): return .delayed(seconds: Int64(values[0]), failures: values[1])
        case ("disabled", 1): return .disabled(failures: values[0])
        default: return nil
        }
    }

    private static func printable<S: StringProtocol>(_ text: S) -> String {
        String(
            text.unicodeScalars.prefix(200).map {
                $0.isASCII && $0.value >= 0x20 && $0.value < 0x7f ? Character($0) : "?"
            })
    }
}
