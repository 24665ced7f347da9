// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// A source of `Instant`s; tests inject their own.
public protocol Clock: Sendable {
    /// The current instant.
    func now() -> Instant
}
