// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Fuzzes the pepper file parser, `Pepper(parsing:path:)` (docs/FORMAT.md §2).
///
/// Property: the format has one canonical form, so a file that parses re-serializes to
/// exactly its own bytes.
import FuzzSupport

@testable import SecureRoomCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPepper(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let pepper = try? Pepper(parsing: bytes, path: "fuzz") else { return 0 }
    require(pepper.bytes.count == Pepper.length, "pepper length \(pepper.bytes.count)")
    require(pepper.serialized() == bytes, "pepper does not re-serialize to its input")
    return 0
}
