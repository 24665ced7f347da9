// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomSystem
import Glibc

/// posix_spawn for the programs a tool starts (gpg for an import, a pinentry, serve's
/// `unlock --pinentry`): the tool's environment, each standard descriptor as given, no
/// other descriptor of the tool (closefrom 3) and no blocked signal (serve blocks its stop
/// signals; a child that inherited that mask would ignore the SIGTERM that ends it).
/// `secureroom-helper`'s own client spawns with an empty environment instead
/// (`HelperClient`).
public enum ChildProcess {
    /// Where one of the child's standard descriptors comes from.
    public enum Source {
        /// A copy of this descriptor of ours.
        case descriptor(Int32)
        /// This file, opened with these flags.
        case file(String, flags: Int32)
    }

    /// Starts `arguments` (`arguments[0]` looked up in PATH, unless `executable` names the
    /// file) with `standard` descriptors (0, 1, 2; one not given is inherited); the pid,
    /// or the errno it failed with.
    public static func spawn(
        _ arguments: [String], executable: String? = nil, standard: [Int32: Source]
    ) -> Result<pid_t, SpawnFailure> {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        for (target, source) in standard.sorted(by: { $0.key < $1.key }) {
            switch source {
            case .descriptor(let descriptor): posix_spawn_file_actions_adddup2(&actions, descriptor, target)
            case .file(let path, let flags): posix_spawn_file_actions_addopen(&actions, target, path, flags, 0)
            }
        }
        _ = sr_spawn_addclosefrom(&actions, 3)
        _ = sr_spawnattr_unblock_signals(&attributes)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status =
            executable.map { posix_spawn(&pid, $0, &actions, &attributes, argv, environ) }
            ?? posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environ)
        return status == 0 ? .success(pid) : .failure(SpawnFailure(errno: status))
    }

    /// Why a child did not start.
    public struct SpawnFailure: Error {
        /// posix_spawn's error number.
        public let errno: Int32
    }
}
