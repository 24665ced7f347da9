// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser

/// `secureroom tpm`: the TPM that bound PINs use.
struct TPMCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tpm",
        abstract: "Show the TPM's state, or set its dictionary-attack parameters once.",
        subcommands: [TPMStatusCommand.self, TPMHardenCommand.self],
        defaultSubcommand: TPMStatusCommand.self)
}
