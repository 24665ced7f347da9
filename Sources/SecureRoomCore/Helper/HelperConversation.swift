// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// A line of the PAM conversation the helper relays during `enrol` (HelperProtocol):
/// the questions and messages of the secureroom-enrol service, from the helper to its
/// caller. A question is answered with one line (no newline inside); a message is not.
///
///     ask-secret TEXT    a prompt whose answer is not echoed (the password)
///     ask TEXT           a prompt whose answer may be echoed
///     say-error TEXT     an error message
///     say TEXT           an informational message
///
/// TEXT is reduced to printable ASCII (a module's newlines become spaces).
public enum HelperConversation: Equatable, Sendable {
    /// Echo off.
    case askSecret(String)
    /// Echo on.
    case ask(String)
    /// PAM_ERROR_MSG.
    case sayError(String)
    /// PAM_TEXT_INFO.
    case say(String)

    /// The longest answer the helper reads (a password, say).
    public static let maximumAnswerLength = 512
    /// How long the helper waits for a whole answer to a question (a password): 2 minutes,
    /// then it ends the conversation (PAM_CONV_ERR: nothing created) and logs it.
    public static let answerSeconds = 120

    /// Whether the caller must answer.
    public var isQuestion: Bool {
        switch self {
        case .askSecret, .ask: return true
        case .sayError, .say: return false
        }
    }

    /// The text shown to the user.
    public var text: String {
        switch self {
        case .askSecret(let text), .ask(let text), .sayError(let text), .say(let text): return text
        }
    }

    /// The line (no newline).
    public var line: String {
        switch self {
        case .askSecret(let text): return "ask-secret " + Self.clean(text)
        case .ask(let text): return "ask " + Self.clean(text)
        case .sayError(let text): return "say-error " + Self.clean(text)
        case .say(let text): return "say " + Self.clean(text)
        }
    }

    /// Parses a line; nil if it is not a conversation line (then it is a final reply).
    public init?(line: Substring) {
        guard let space = line.firstIndex(of: " ") else { return nil }
        let text = String(line[line.index(after: space)...])
        switch line[..<space] {
        case "ask-secret": self = .askSecret(text)
        case "ask": self = .ask(text)
        case "say-error": self = .sayError(text)
        case "say": self = .say(text)
        default: return nil
        }
    }

    /// Printable ASCII, newlines and tabs as spaces, at most 400 characters; a prompt's
    /// trailing space survives (it separates the prompt from what is typed).
    private static func clean(_ text: String) -> String {
        String(
            text.unicodeScalars.prefix(400).map { scalar -> Character in
                if scalar == "\n" || scalar == "\t" { return " " }
                return scalar.isASCII && scalar.value >= 0x20 && scalar.value < 0x7f ? Character(scalar) : "?"
            })
    }
}
