// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser

/// `secureroom tpm`: the TPM that bound PINs use.
struct TPMCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tpm",
        abstract: "Show the TPM's state, harden it once, or free the counters of replaced PINs.",
        subcommands: [TPMStatusCommand.self, TPMHardenCommand.self, TPMPruneCommand.self],
        defaultSubcommand: TPMStatusCommand.self)
}
