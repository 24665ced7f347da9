// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomBase

/// A vector file of docs/vectors/ (docs/FORMAT.md §5): `#` comment lines, then blocks of
/// `key: value` lines separated by blank lines, each block one vector named by its
/// `vector:` line. A key may repeat within a block (`attribute:`); its values keep their order.
public struct VectorFile {
    /// One vector: each key's values in order.
    public struct Vector {
        /// The lines of the block, by key.
        public let fields: [String: [String]]

        /// The vector's kind (its `vector:` line).
        public var kind: String { fields["vector"]?.first ?? "" }
        /// Its `about:` line, for failure messages.
        public var about: String { "\(kind): \(fields["about"]?.first ?? "")" }

        /// The single value of `key`.
        public func text(_ key: String) throws -> String {
            guard let values = fields[key], values.count == 1 else {
                throw VectorFileError(message: "\(about): expected one \(key) line")
            }
            return values[0]
        }

        /// The single value of `key`, as bytes from lowercase hex (`Hex`, as the records).
        public func bytes(_ key: String) throws -> [UInt8] {
            let text = try text(key)
            guard let bytes = Hex.decode(Substring(text), count: text.utf8.count / 2) else {
                throw VectorFileError(message: "\(about): \(key) is not hex")
            }
            return bytes
        }
    }

    /// A malformed vector file or block.
    public struct VectorFileError: Error, CustomStringConvertible {
        /// What is wrong.
        public let message: String
        /// The message.
        public var description: String { message }
    }

    /// docs/vectors in this checkout.
    public static let directory = Artifacts.root + "/docs/vectors"

    /// The vectors of `name` (a file in docs/vectors), in file order.
    public let vectors: [Vector]

    /// Reads docs/vectors/`name`.
    public init(_ name: String) throws {
        let text = try String(contentsOfFile: Self.directory + "/" + name, encoding: .utf8)
        vectors = text.components(separatedBy: "\n\n").compactMap { block in
            var fields: [String: [String]] = [:]
            for line in block.split(separator: "\n") where !line.hasPrefix("#") {
                guard let colon = line.range(of: ": ") else { continue }
                fields[String(line[..<colon.lowerBound]), default: []].append(String(line[colon.upperBound...]))
            }
            return fields["vector"] == nil ? nil : Vector(fields: fields)
        }
    }
}
