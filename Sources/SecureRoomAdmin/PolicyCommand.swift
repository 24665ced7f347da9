// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser

/// `secureroom policy`: the PIN and lockout policy.
struct PolicyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy",
        abstract: "Show the PIN and lockout policy, or check PINs against it.",
        subcommands: [PolicyShowCommand.self, PolicyCheckCommand.self],
        defaultSubcommand: PolicyShowCommand.self)
}
