// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Fuzzes the shared record line parser, `RecordText` (docs/FORMAT.md §1.1), under
/// each record kind's header and key set (the first input byte picks one).
///
/// Properties of a parse that succeeds:
/// - every value is printable ASCII without a newline, and every key is a declared key;
/// - a key that is not repeatable has exactly one value;
/// - rendering the fields again (`RecordText.render`) reparses to the same fields;
/// - the strict number and hex helpers accept only canonical text: a decimal value
///   prints back as itself, a hex value re-encodes as itself.
import FuzzSupport

@testable import SecureRoomCore

/// The record kinds: header, keys, repeatable keys.
private let schemas: [(header: String, keys: Set<String>, repeatable: Set<String>)] = [
    (
        "SECUREROOM-CREDENTIAL/1",
        [
            "user", "kdf", "memory-kib", "iterations", "lanes", "salt",
            "verifier", "digits", "created", "vault-key",
        ], []
    ),
    ("SECUREROOM-LOCKOUT/1", ["failures", "last-failure", "last-success", "seen"], ["seen"]),
    ("SECUREROOM-RECOVERY/1", ["user", "salt", "vault-key", "created"], []),
    ("SECUREROOM-PEPPER/1", ["pepper"], []),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecordText(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let (pick, bytes) = selector(fuzzBytes(data, size))
    let schema = schemas[Int(pick) % schemas.count]
    guard
        let text = try? RecordText(
            parsing: bytes, header: schema.header, keys: schema.keys,
            repeatable: schema.repeatable, path: "fuzz")
    else { return 0 }
    var pairs: [(String, String)] = []
    for (key, values) in text.fields.sorted(by: { $0.key < $1.key }) {
        require(schema.keys.contains(key), "undeclared key \(key) accepted")
        require(!values.isEmpty, "key \(key) with no value")
        require(values.count == 1 || schema.repeatable.contains(key), "duplicate key \(key) accepted")
        for value in values {
            require(value.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7f }, "value of \(key) is not printable ASCII")
            if let number = RecordText.decimal(value, as: Int64.self) {
                require(String(number) == value, "non-canonical decimal accepted")
            }
            if value.utf8.count % 2 == 0, let raw = Hex.decode(value, count: value.utf8.count / 2) {
                require(Hex.encode(raw) == value, "non-canonical hex accepted")
            }
            pairs.append((key, String(value)))
        }
    }
    let rendered = RecordText.render(header: schema.header, pairs)
    let again: RecordText
    do {
        again = try RecordText(
            parsing: rendered, header: schema.header, keys: schema.keys,
            repeatable: schema.repeatable, path: "fuzz")
    } catch {
        fatalError("fuzz property violated: rendered fields do not reparse: \(error)")
    }
    require(
        again.fields.mapValues { $0.map(String.init) } == text.fields.mapValues { $0.map(String.init) },
        "rendered fields reparse to different fields")
    return 0
}
