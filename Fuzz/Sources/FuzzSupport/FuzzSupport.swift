// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Shared by the SecureRoom fuzzers: reading libFuzzer's input and checking properties.
import SecureRoomCore

/// The fuzzer's input as an array (copied: the harnesses pass it to APIs taking `[UInt8]`).
public func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// Traps (a libFuzzer crash) when a property of the parser does not hold. `message` names
/// the property; it never contains secret material other than fuzzer-made bytes.
public func require(
    _ condition: Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition { fatalError("fuzz property violated: \(message())", file: file, line: line) }
}

/// The lines of a record's text (split on `\n`, without the final empty piece), sorted:
/// two renderings with the same lines in another order compare equal.
public func sortedLines(_ bytes: [UInt8]) -> [[UInt8]] {
    var lines = bytes.split(separator: 0x0a, omittingEmptySubsequences: false).map(Array.init)
    if lines.last == [] { lines.removeLast() }
    return lines.sorted { $0.lexicographicallyPrecedes($1) }
}

/// Splits the input into a one-byte selector and the rest.
public func selector(_ bytes: [UInt8]) -> (UInt8, [UInt8]) {
    guard let first = bytes.first else { return (0, []) }
    return (first, Array(bytes.dropFirst()))
}

/// Decodes a hex constant written in a harness (a test vector from docs/FORMAT.md).
public func hexConstant(_ text: String) -> [UInt8] {
    let digits = Array(text.utf8).map { $0 <= 0x39 ? $0 - 0x30 : $0 - 0x61 + 10 }
    return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
}

/// A secret buffer holding a copy of `bytes`.
public func secret(_ bytes: [UInt8]) -> SecretBytes {
    bytes.withUnsafeBytes { SecretBytes(copying: $0) }
}
