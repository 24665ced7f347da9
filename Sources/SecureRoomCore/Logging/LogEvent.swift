// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// The kinds of PIN outcome a log line reports, each with the journal's MESSAGE_ID (128
/// bits, hex): `journalctl MESSAGE_ID=…` selects one kind, and the shipped message
/// catalog (pam/secureroom.catalog, `journalctl -x`) explains it. An ID never changes
/// meaning; a new kind gets a new ID.
public enum LogEvent: String, CaseIterable, Sendable {
    /// A right PIN.
    case accepted = "f8a9de361a8d4daeab7be5112bd11098"
    /// A wrong PIN, counted.
    case wrong = "9bbc11863c864591b7c1fa6c591af1f2"
    /// A wrong PIN already counted in this run, not counted again.
    case repeated = "94704a57c7d243ce81d1ce8dd70e941b"
    /// Refused without a check: the PIN is delayed or disabled.
    case locked = "ed78a60abccb4cf38e6b2c9994b83571"
    /// This failure disabled the PIN (it reached `deny`).
    case disabled = "e980c238b91e442cb5713153930d3795"
    /// `wipe_after` erased the PIN-wrapped vault key.
    case vaultErased = "deaf317f6b144cb5a5d6f701691884bb"
    /// A name without a PIN, or no account, refused as a wrong PIN (`nopin=fail`).
    case noPIN = "8fad7136efa24d8d9dddfe2f335c78df"
    /// The PIN was not asked for (`remote=deny`, `password_first=`, `nopin=ignore`).
    case notUsed = "cac8145bf8e14990815cb2062c1c2780"
    /// The PIN cannot be checked now: the TPM, damaged or insecure state
    /// (PAM_AUTHINFO_UNAVAIL; the stack goes on to the password).
    case unavailable = "a13f99bbde894f32bcb4455c60ad687c"
}
