// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import SecureRoomCore
import SecureRoomProgramSupport

/// `secureroom expire USER`: the user's PIN must be changed at its next use.
struct ExpireCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "expire",
        abstract: "Make a user's PIN one that must be changed at its next use (root only).",
        discussion: """
            The PIN keeps working once more: right after the next PIN login the account step \
            asks for a new PIN, and refuses the login without one (the pam-auth-update \
            profile's account line, only_expired; see pam/README.md). 'secureroom set --expire' \
            sets a new PIN with the same mark. 'status' shows it as must_change.
            """)

    @Argument(help: "The account.")
    var user: String

    @OptionGroup var state: StateOptions

    func run() throws {
        try requireRoot("expire")
        try reportingFailures {
            let user = try existingUser(user)
            try PINAdministration(store: try state.store()).expire(user)
            SystemLog.open(identity: "secureroom")
            SystemLog.notice("PIN of \(user) expired by an administrator: to be changed at its next use")
            print("The PIN of \(user) must be changed at its next use.")
        }
    }
}
