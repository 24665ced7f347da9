// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Fuzzes the wrapped-key openers and the typed recovery key (docs/FORMAT.md §7):
/// `VaultKey.unwrap` (PIN and recovery paths), `SealedKeys.open` and
/// `RecoveryKey(typed:)`, with the fixed keys of the FORMAT.md §7.1 vectors. The first
/// input byte picks the parser.
///
/// Properties:
/// - a wrapped key opens only if it is the vector's (nothing else authenticates), and
///   then to the vector's DEK; `SealedKeys.open` of arbitrary bytes fails cleanly;
/// - wrap then unwrap returns the DEK, for any valid user name; the wrapped key does
///   not open for another user or with one byte changed;
/// - a typed recovery key that parses has 40 digits, and its display text parses back
///   to the same digits.
import FuzzSupport

@testable import SecureRoomCore

/// FORMAT.md §5 master (m=256 row) and §7.1 DEK, recovery key, salt and wrapped keys.
private let master = secret(
    hexConstant(
        "7b4f29228ec55aad8fbe947d775fb7ebb2453dcab43b6151a378d09823fed10d"))
private let dek = Array(UInt8(0x40)...UInt8(0x5f))
private let recoverySalt = Array(UInt8(0x10)...UInt8(0x1f))
private let recoveryKey = try! "01234-56789-01234-56789-01234-56789-01234-56789".utf8
    .withContiguousStorageIfAvailable { try RecoveryKey(typed: UnsafeRawBufferPointer($0)) }!
private let alice = try! UserName("alice")

private func bytes(_ secret: SecretBytes?) -> [UInt8]? { secret?.withUnsafeBytes { Array($0) } }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVaultKey(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let (pick, input) = selector(fuzzBytes(data, size))
    switch pick % 5 {
    case 0:
        if let opened = VaultKey.unwrap(input, master: master, user: alice) {
            require(bytes(opened) == dek, "a wrapped key opened to something other than the vector's DEK")
        }
    case 1:
        if let opened = VaultKey.unwrap(input, recoveryKey: recoveryKey, salt: recoverySalt, user: alice) {
            require(bytes(opened) == dek, "a recovery-wrapped key opened to something other than the DEK")
        }
    case 2:
        let key = dek.withUnsafeBytes { SecretBytes(copying: $0) }
        let split = min(input.count, Int(input.first ?? 0))
        if let opened = SealedKeys.open(Array(input[split...]), key: key, authenticating: Array(input[..<split])) {
            fatalError("fuzz property violated: arbitrary bytes authenticated (\(opened.count) bytes)")
        }
    case 3:
        guard let key = input.withUnsafeBytes({ try? RecoveryKey(typed: $0) }) else { return 0 }
        let digits = bytes(key.digits) ?? []
        require(
            digits.count == RecoveryKey.digitCount && digits.allSatisfy { $0 >= 0x30 && $0 <= 0x39 },
            "recovery key is not 40 digits")
        let shown = key.displayText
        require(shown.utf8.count == 47, "display text length \(shown.utf8.count)")
        let again = Array(shown.utf8).withUnsafeBytes { try? RecoveryKey(typed: $0) }
        require(again.flatMap { bytes($0.digits) } == digits, "display text parses to other digits")
    default:
        // DEK = the first 32 bytes (zero-padded), user name = the rest.
        let key = Array((input + [UInt8](repeating: 0, count: VaultKey.length)).prefix(VaultKey.length))
        guard let user = try? UserName(String(decoding: input.dropFirst(VaultKey.length), as: UTF8.self)) else {
            return 0
        }
        let dekSecret = secret(key)
        guard var wrapped = try? VaultKey.wrap(dekSecret, master: master, user: user) else {
            fatalError("fuzz property violated: wrap failed")
        }
        require(wrapped.count == VaultKey.wrappedLength, "wrapped length \(wrapped.count)")
        require(bytes(VaultKey.unwrap(wrapped, master: master, user: user)) == key, "unwrap(wrap(dek)) != dek")
        let other = try! UserName(user.rawValue == "alice" ? "bob" : "alice")
        require(VaultKey.unwrap(wrapped, master: master, user: other) == nil, "wrapped key opened for another user")
        let position = Int(key[0]) % wrapped.count
        wrapped[position] ^= 1 << (key[1] % 8)
        require(VaultKey.unwrap(wrapped, master: master, user: user) == nil, "altered wrapped key opened")
    }
    return 0
}
