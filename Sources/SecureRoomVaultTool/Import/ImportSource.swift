// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser

/// Where `import` reads secrets from (`--from`).
enum ImportSource: String, ExpressibleByArgument, CaseIterable {
    /// A JSON array on standard input, as `export` writes it; all or nothing.
    case json
    /// A pass(1) password store, each entry decrypted by the user's gpg.
    case pass
    /// A KeePassXC export, CSV or XML.
    case keepassxc
    /// The Secret Service provider running now (gnome-keyring, KeePassXC), before `serve`
    /// takes its place.
    case secretService = "secret-service"
}
