// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Whether a user has a PIN, read from the credential alone, without a lock and without
/// counting (`PINAuthority.standing(of:)`): what a PIN change's first pass, the session
/// steps and the enrolment offer ask before they act.
public enum PINStanding {
    /// Not read here: the authority is secureroom-helper, which answers checks only.
    case unknown
    /// The user has no PIN.
    case none
    /// The user has a PIN; `vaultKey`: a vault key is wrapped under it.
    case enrolled(vaultKey: Bool)
}
