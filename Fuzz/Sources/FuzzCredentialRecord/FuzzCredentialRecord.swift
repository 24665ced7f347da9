// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Fuzzes the credential record parser, `CredentialRecord(parsing:path:)` (FORMAT.md §3).
///
/// Properties of a record that parses:
/// - its fields are within the documented ranges (argon2 parameters valid, 16-byte salt,
///   32-byte verifier, digits in range, 60-byte wrapped vault key if present);
/// - `serialized()` is canonical: it has exactly the input's lines (in canonical order),
///   so no two different files mean the same record;
/// - `serialized()` parses back to an equal record.
import FuzzSupport

@testable import SecureRoomCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCredentialRecord(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let record = try? CredentialRecord(parsing: bytes, path: "fuzz") else { return 0 }
    require((try? record.parameters.validate()) != nil, "invalid argon2 parameters accepted")
    require(record.salt.count == Argon2id.saltLength, "salt length \(record.salt.count)")
    require(record.verifier.count == PINKeys.verifierLength, "verifier length \(record.verifier.count)")
    require(PINFormat.digitRange.contains(record.digits), "digits \(record.digits)")
    require(record.created >= 0, "negative created")
    require(record.vaultKey.map { $0.count == VaultKey.wrappedLength } ?? true, "vault-key length")
    require((try? UserName(record.user.rawValue)) != nil, "invalid user name accepted")
    let serialized = record.serialized()
    require(sortedLines(serialized) == sortedLines(bytes), "serialized lines differ from the input's")
    let again = try? CredentialRecord(parsing: serialized, path: "fuzz")
    require(again == record, "serialized record does not parse back to itself")
    return 0
}
