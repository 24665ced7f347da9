// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// One account's share of the TPM's dictionary-attack counter (docs/SECURITY.md §1.2).
/// The counter is the whole chip's and forgets one failure per lockout interval; an
/// account's success forgives its failures on disk but not on the chip. So each account
/// may have put at most `allowance` wrong PINs to the chip within `window` — fewer than half
/// of the chip's tries, so that no account locks the chip alone — and is refused before the
/// prompt beyond that, until the oldest ages out. A name without a PIN (`nopin=fail`) has
/// the same share on its decoy slot.
struct TPMShare {
    /// Wrong PINs one account may put to the chip within `window`.
    let allowance: Int
    /// How long the chip takes to forget as many failures as it allows (tries × interval).
    let window: Int64

    /// The share on a chip with this dictionary-attack state.
    init(_ status: DAStatus) {
        allowance = max(1, (Int(status.maxAuthFail) - 1) / 2)
        window = Int64(status.maxAuthFail) * Int64(max(1, status.lockoutInterval))
    }

    /// Seconds until the account may try again, nil while its share is not spent.
    func secondsLeft(_ chipFailedAt: [Int64], now: Int64) -> Int? {
        let recent = chipFailedAt.filter { now - $0 < window }
        guard recent.count >= allowance, let oldest = recent.min() else { return nil }
        return Int(max(1, oldest + window - now))
    }
}
