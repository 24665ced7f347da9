// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import SecureRoomBase

/// What can go wrong with a vault, each with a message that says what to do.
public enum VaultError: Error, Equatable, TranslatableDescription {
    /// No unlocked key in the keyring.
    case locked(user: String)
    /// The vault file does not exist yet.
    case missing(path: String)
    /// No secret with this title.
    case notFound(title: String)
    /// No secret with this identity (it was removed, or never existed).
    case noSuchItem
    /// A secret with this title exists already.
    case exists(title: String)
    /// The key in the keyring is not the key this vault was sealed with.
    case wrongKey(path: String)
    /// The file or a secret in it is damaged or was altered.
    case damaged(String)
    /// A title or value outside the limits.
    case invalid(String)
    /// SQLite failed.
    case database(path: String, message: String)
    /// The vault file or its directory is not safely private.
    case insecure(path: String, reason: String)

    /// One line for the user, in their language: tool messages and D-Bus replies.
    public var localizedDescription: String { text(.user) }

    /// One line: `description` for log lines (`serve`'s), `localizedDescription` for tool
    /// messages and D-Bus replies.
    public func text(_ translate: Translation) -> String {
        switch self {
        case let .locked(user):
            return translate(
                "the vault of {user} is locked; run 'secureroom-vault unlock' (or log in with your PIN)", ["user": user]
            )
        case let .missing(path):
            return translate("no vault at {path}; run 'secureroom-vault init' first", ["path": path])
        case let .notFound(title): return translate("no secret titled {title}", ["title": Self.quoted(title)])
        case .noSuchItem: return translate("no such secret (it may have been removed)")
        case let .exists(title):
            return translate(
                "a secret titled {title} exists already (use --replace to overwrite it)", ["title": Self.quoted(title)])
        case let .wrongKey(path):
            return translate(
                "{path} was sealed with another key than the unlocked one (vault replaced or file copied from "
                    + "elsewhere)", ["path": path])
        case let .damaged(detail): return translate("the vault is damaged: {problem}", ["problem": detail])
        case let .invalid(detail): return detail
        case let .database(path, message): return "\(path): \(message)"
        case let .insecure(path, reason):
            return translate("refusing {path}: {reason}", ["path": path, "reason": reason])
        }
    }

    /// A title as shown in messages: quoted, control characters escaped, bounded.
    public static func quoted(_ title: String) -> String {
        "\"" + TitleText.escaped(String(title.prefix(200))) + "\""
    }
}

/// Titles on a terminal: control characters and backslashes escaped, so a title with a
/// newline or an escape sequence prints as one harmless line.
public enum TitleText {
    /// `title` with `\\`, `\n`, `\t` and other control characters (`\xNN`) escaped.
    public static func escaped(_ title: String) -> String {
        var out = ""
        for scalar in title.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7f || (0x80..<0xa0).contains(scalar.value):
                let hex = String(scalar.value, radix: 16)
                out += "\\x" + (hex.count < 2 ? "0" + hex : hex)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
