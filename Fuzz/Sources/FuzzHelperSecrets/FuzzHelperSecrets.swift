// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Fuzzes the decoder of the key material after the helper's `success`,
/// `HelperSecrets.decode` (docs/SECURITY.md §3).
///
/// Property: the encoding is canonical, so words that decode re-encode
/// (`HelperSecrets.encode`) to exactly the same bytes; decoded keys have their lengths.
import FuzzSupport

@testable import SecureRoomCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHelperSecrets(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let decoded = bytes.withUnsafeBytes({ HelperSecrets.decode($0) }) else { return 0 }
    require(decoded.vaultKey.map { $0.count == VaultKey.length } ?? true, "vault key length")
    require(decoded.recoveryKey.map { $0.digits.count == RecoveryKey.digitCount } ?? true, "recovery key length")
    let encoded = HelperSecrets.encode(vaultKey: decoded.vaultKey, recoveryKey: decoded.recoveryKey)
    require(encoded.withUnsafeBytes { Array($0) } == bytes, "decoded secrets re-encode to other bytes")
    return 0
}
