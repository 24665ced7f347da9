// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Glibc
import SecureRoomCore
import SecureRoomProgramSupport

/// Options every subcommand accepts: where the configuration and the state live.
struct StateOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("State directory (overrides dir= in the config file).", valueName: "dir"))
    var dir: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Config file (default: \(Configuration.defaultConfigPath)).",
            valueName: "file"))
    var config: String?

    /// The configuration in effect: the config file, then --dir. Unknown keys are
    /// reported on standard error, as the module logs them.
    func load() throws -> Configuration {
        if let dir, !dir.hasPrefix("/") { throw ValidationError("--dir must be an absolute path") }
        // --config and --dir are the module's conf= and dir= arguments: same parsing, same precedence.
        let arguments = (config.map { ["conf=\($0)"] } ?? []) + (dir.map { ["dir=\($0)"] } ?? [])
        let configuration = try Configuration.load(arguments: arguments, reader: ConfigurationFile.read)
        for key in configuration.unknownKeys {
            printError(
                "warning: \(config ?? Configuration.defaultConfigPath): ignoring unknown option \(UserName.quoted(key))"
            )
        }
        return configuration
    }

    /// The state store for the configuration in effect; a wait for a user's lock is told
    /// on standard error after a second, with the holder. Run by root, a command ends a
    /// holder that keeps the lock past the patience (a user's stopped su, say), and says so
    /// on standard error and in syslog.
    func store() throws -> StateStore {
        let store = StateStore(configuration: try load())
        store.lockWaitNotice = { printError($0) }
        if getuid() == 0 {
            store.stalledLockHoldersEnded = { ended in
                printError(ended)
                SystemLog.open(identity: "secureroom")
                SystemLog.notice(ended)
            }
        }
        return store
    }
}
