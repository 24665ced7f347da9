// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Unique titles for an import whose source may repeat a name (two KeePassXC entries of a
/// group with one title, two Secret Service items with one label): the name as it is,
/// then "NAME (2)", "NAME (3)", … skipping any title already handed out, so that
/// `X`, `X`, `X (2)` become `X`, `X (2)`, `X (2) (2)`, never one title twice.
public struct ImportTitles {
    private var taken = Set<String>()

    /// No title handed out yet.
    public init() {}

    /// A title for `name` that no earlier call returned.
    public mutating func unique(_ name: String) -> String {
        var title = name
        var number = 1
        while taken.contains(title) {
            number += 1
            title = "\(name) (\(number))"
        }
        taken.insert(title)
        return title
    }
}
