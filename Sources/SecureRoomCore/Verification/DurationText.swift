// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Human-readable durations: "1-minute", "4 min 10 s", "1 h".
public enum DurationText {
    /// "4 min 10 s", "1 h 5 min", "30 s".
    public static func spoken(_ seconds: Int64) -> String {
        let s = max(seconds, 1)
        let (hours, minutes, rest) = (s / 3600, s % 3600 / 60, s % 60)
        var parts: [String] = []
        if hours > 0 { parts.append("\(hours) h") }
        if minutes > 0 { parts.append("\(minutes) min") }
        if rest > 0 && hours == 0 { parts.append("\(rest) s") }
        return parts.joined(separator: " ")
    }

    /// "1-minute", "15-minute", "1-hour" (as in "a 1-minute delay"), in the user's language.
    public static func adjective(_ seconds: Int64) -> String {
        // TRANSLATORS: as in "a 15-minute delay" ("{count} attempts left before a {delay} delay.").
        if seconds % 3600 == 0 { return localized("{count}-hour", plural: "{count}-hour", count: Int(seconds / 3600)) }
        // TRANSLATORS: as in "a 15-minute delay".
        if seconds % 60 == 0 { return localized("{count}-minute", plural: "{count}-minute", count: Int(seconds / 60)) }
        // TRANSLATORS: as in "a 30-second delay".
        return localized("{count}-second", plural: "{count}-second", count: Int(seconds))
    }

    /// "60" → "1m", "3600" → "1h", "90" → "90s".
    public static func compact(_ seconds: Int64) -> String {
        if seconds > 0 && seconds % 86_400 == 0 { return "\(seconds / 86_400)d" }
        if seconds > 0 && seconds % 3600 == 0 { return "\(seconds / 3600)h" }
        if seconds > 0 && seconds % 60 == 0 { return "\(seconds / 60)m" }
        return "\(seconds)s"
    }
}
