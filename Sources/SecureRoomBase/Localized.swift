// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomSystem

/// Messages to people in their language: gettext(3) in the text domain `secureroom`, as
/// Linux-PAM's modules use theirs (docs/DESIGN.md §13). Log lines never go through it.
///
/// A message is a literal (or literals joined with `+`) passed straight to `localized`,
/// so that `scripts/po update` finds it; values go in by name, `{name}` in the text, so a
/// translation may reorder them. The PAM module takes the language of the program that
/// loaded it (su, sudo, login and the greeters call setlocale; sshd does not, so its
/// prompts follow sshd's own locale); the tools call `useMessageLocale()` first.
public enum Localized {
    /// The text domain: po/secureroom.pot, /usr/share/locale/LL/LC_MESSAGES/secureroom.mo.
    public static let domain = "secureroom"
    /// Where the catalogues are installed, whatever the tools' prefix (scripts/install).
    public static let directory = "/usr/share/locale"

    /// The domain bound once per process, its output UTF-8 whatever the locale's codeset.
    private static let bound: Bool = sr_bind_text_domain(domain, directory, "UTF-8") == 0

    /// A tool's LC_MESSAGES from the environment (LANGUAGE, LC_ALL, LC_MESSAGES, LANG);
    /// the rest of the locale stays "C", so nothing else a tool prints or parses changes.
    public static func useMessageLocale() { _ = sr_set_message_locale() }

    /// `message` translated, each `{name}` replaced by its value.
    public static func text(_ message: String, _ values: KeyValuePairs<String, String>) -> String {
        // gettext answers "" with the catalogue's header.
        guard !message.isEmpty else { return message }
        _ = bound
        // dgettext returns its argument when nothing is found: read it while it lives.
        let translated = message.withCString { msgid in sr_dgettext(domain, msgid).map { String(cString: $0) } }
        return substitute(values, in: translated ?? message)
    }

    /// `english`, a whole text made elsewhere (a reason the helper sent, one made with
    /// `Translation.english`), in the user's language if the catalogue has it; else unchanged.
    public static func lookUp(_ english: String) -> String { text(english, [:]) }

    /// The form of `singular`/`plural` for `count`, translated, `{count}` and each `{name}`
    /// replaced.
    public static func text(
        _ singular: String, plural: String, count: Int, _ values: KeyValuePairs<String, String>
    ) -> String {
        _ = bound
        let form = singular.withCString { one in
            plural.withCString { many in
                sr_dngettext(domain, one, many, UInt(clamping: count)).map { String(cString: $0) }
            }
        }
        let all = [(key: "count", value: String(count))] + values.map { (key: $0.key, value: $0.value) }
        return substitute(all, in: form ?? (count == 1 ? singular : plural))
    }

    /// `text` with each `{name}` that has a value replaced by it; other braces kept. The
    /// values are not scanned again.
    static func substitute(_ values: some Collection<(key: String, value: String)>, in text: String) -> String {
        guard !values.isEmpty else { return text }
        var result = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            let afterOpen = rest.index(after: open)
            if let close = rest[afterOpen...].firstIndex(of: "}"),
                let value = values.first(where: { $0.key == rest[afterOpen..<close] })?.value
            {
                result += value
                rest = rest[rest.index(after: close)...]
            } else {
                result += "{"
                rest = rest[afterOpen...]
            }
        }
        return result + rest
    }
}

/// `message` in the user's language (see `Localized`), each `{name}` replaced by its value.
public func localized(_ message: String, _ values: KeyValuePairs<String, String> = [:]) -> String {
    Localized.text(message, values)
}

/// The form for `count` of a message with a plural, in the user's language; `{count}` is
/// the number.
public func localized(
    _ singular: String, plural: String, count: Int, _ values: KeyValuePairs<String, String> = [:]
) -> String {
    Localized.text(singular, plural: plural, count: count, values)
}

/// The language of a text that is both logged and shown: `.english` for log lines, `.user`
/// for people (`localized`). Code that builds such a text takes one and calls it as
/// `translate("...")`, which `scripts/po update` finds like `localized("...")`.
public struct Translation: Sendable {
    /// Whether texts are looked up in the catalogue.
    let looksUp: Bool

    /// The source text, values filled in: for log lines.
    public static let english = Translation(looksUp: false)
    /// The user's language: for people.
    public static let user = Translation(looksUp: true)

    /// `english`, a whole text made elsewhere, in this language (`Localized.lookUp`).
    public func lookUp(_ english: String) -> String { looksUp ? Localized.lookUp(english) : english }

    /// `message` in this language, each `{name}` replaced by its value.
    public func callAsFunction(_ message: String, _ values: KeyValuePairs<String, String> = [:]) -> String {
        looksUp ? Localized.text(message, values) : Localized.substitute(values.map { $0 }, in: message)
    }
}

/// A text both logged and shown (an error's, a refusal's), written once for a
/// `Translation`: `description` is the English of log lines; each conforming type also
/// declares `localizedDescription` as `text(.user)` (a member of its own, which wins over
/// Foundation's `Error.localizedDescription` where Foundation is imported).
public protocol TranslatableDescription: CustomStringConvertible {
    /// The text in `translate`'s language.
    func text(_ translate: Translation) -> String
}

extension TranslatableDescription {
    /// The text in English, for log lines.
    public var description: String { text(.english) }
}
