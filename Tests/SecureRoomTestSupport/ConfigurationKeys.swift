// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The keys `Configuration.apply` parses, read from its source (each `case "key"` of
/// Sources/SecureRoomCore/Configuration/Configuration.swift): what the documentation
/// tests compare the man pages and the shipped secureroom.conf with.
public enum ConfigurationKeys {
    /// The parsed keys, as the checkout's source has them.
    public static func parsed() throws -> Set<String> {
        let source = try String(
            contentsOfFile: Artifacts.root + "/Sources/SecureRoomCore/Configuration/Configuration.swift",
            encoding: .utf8)
        return Set(
            source.components(separatedBy: "case \"").dropFirst().compactMap { rest -> String? in
                let key = rest.prefix { $0 != "\"" }
                return key.allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "_" }) && !key.isEmpty
                    ? String(key) : nil
            })
    }
}
