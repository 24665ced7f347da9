// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// What `PINAuthority.passwordAccepted(by:)` did.
public struct PasswordAcceptance {
    /// The lockout it lifted (the tally as it stood), nil if there were no failures.
    public let lifted: LockoutStatus?
    /// Why the password's proof was not recorded, when that did not matter (no
    /// `password_first=`); nil when it was recorded.
    public let proofNotRecorded: String?

    /// What was done.
    public init(lifted: LockoutStatus?, proofNotRecorded: String?) {
        self.lifted = lifted
        self.proofNotRecorded = proofNotRecorded
    }
}
