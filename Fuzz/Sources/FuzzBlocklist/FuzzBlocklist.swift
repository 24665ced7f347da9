// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Fuzzes the blocklist file parser, `Blocklist(parsing:source:)` (`blocklist=PATH`).
///
/// Properties of a list that parses: it has at most one entry per line, and every
/// non-comment line's PIN (spaces, tabs and CRs removed) is on the list.
import FuzzSupport

@testable import SecureRoomCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBlocklist(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let list = try? Blocklist(parsing: bytes, source: "fuzz") else { return 0 }
    let lines = bytes.split(separator: 0x0a, omittingEmptySubsequences: false)
    require(list.count <= lines.count, "\(list.count) entries from \(lines.count) lines")
    for line in lines {
        let pin = line.filter { $0 != 0x20 && $0 != 0x09 && $0 != 0x0d }
        if pin.isEmpty || pin.first == UInt8(ascii: "#") { continue }
        require(
            pin.count <= PINFormat.digitRange.upperBound && pin.allSatisfy { $0 >= 0x30 && $0 <= 0x39 },
            "a line that is not a PIN was accepted")
        require(pin.withUnsafeBytes { list.contains($0) }, "a listed PIN is not on the list")
    }
    return 0
}
