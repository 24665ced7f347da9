// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// How `PINAuthority.replaceExpiredPIN` ended.
public enum ExpiredPINReplacement {
    /// The PIN need not be changed (it was changed meanwhile, or the helper was asked).
    case notExpired
    /// The PIN wraps a vault key that was not unlocked in this transaction: replacing it
    /// would lose the vault. Nothing was asked or written.
    case vaultKeyNotUnlocked
    /// No acceptable new PIN was given. Nothing was written.
    case abandoned
    /// The new PIN replaced the expired one.
    case replaced
}
