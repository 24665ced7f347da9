// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials

/// The JSON the tools print (`--json`), made by JSONEncoder: keys sorted, slashes as they
/// are; one line, or indented with `pretty`.
public enum JSONOutput {
    /// `value` as JSON text.
    public static func text<T: Encodable>(_ value: T, pretty: Bool = false) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty
            ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            : [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
