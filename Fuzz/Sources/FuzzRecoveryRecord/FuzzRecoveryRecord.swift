// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Fuzzes the recovery record parser, `RecoveryRecord(parsing:path:)` (FORMAT.md §7).
///
/// Properties of a record that parses: field lengths as documented; `serialized()` has
/// exactly the input's lines and parses back to an equal record.
import FuzzSupport

@testable import SecureRoomCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecoveryRecord(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let record = try? RecoveryRecord(parsing: bytes, path: "fuzz") else { return 0 }
    require(record.salt.count == RecoveryRecord.saltLength, "salt length \(record.salt.count)")
    require(record.vaultKey.count == VaultKey.wrappedLength, "vault-key length \(record.vaultKey.count)")
    require(record.created >= 0, "negative created")
    let serialized = record.serialized()
    require(sortedLines(serialized) == sortedLines(bytes), "serialized lines differ from the input's")
    require(
        (try? RecoveryRecord(parsing: serialized, path: "fuzz")) == record,
        "serialized record does not parse back to itself")
    return 0
}
