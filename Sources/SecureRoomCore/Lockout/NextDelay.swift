// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// The next (longer) delay ahead of an open tally.
public struct NextDelay: Equatable, Sendable {
    /// Failures left before it starts.
    public var attempts: Int
    /// Its length in seconds.
    public var delay: Int64
}
