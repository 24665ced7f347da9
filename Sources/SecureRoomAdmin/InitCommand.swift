// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import SecureRoomCore
import SecureRoomProgramSupport

/// `secureroom init`: create the state directory and the pepper.
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create the state directory (root:root 0700) and a new random pepper.",
        discussion: """
            Creates DIR (default /var/lib/secureroom) and DIR/users with mode 0700, and a \
            32-byte pepper from getrandom(2) in DIR/pepper (or at pepper= from the config \
            file), mode 0600. Every parent directory must be owned by root and not writable \
            by others. Refuses to replace an existing pepper: that would invalidate every PIN.
            """)

    @OptionGroup var state: StateOptions

    func run() throws {
        try requireRoot("init")
        try reportingFailures {
            let store = try state.store()
            try store.initialize()
            SystemLog.open(identity: "secureroom")
            SystemLog.notice("initialized \(store.configuration.directory)")
            print("Initialized \(store.configuration.directory) (pepper: \(store.configuration.effectivePepperPath)).")
            if store.configuration.tpm != .off { warnIfChipNotHardened(store.configuration) }
        }
    }
}
