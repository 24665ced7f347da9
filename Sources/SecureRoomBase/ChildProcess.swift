// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomSystem
import Glibc

/// posix_spawn for the programs SecureRoom starts (gpg for an import, a pinentry, serve's
/// `unlock --pinentry`, secureroom-helper for `HelperClient`): each standard descriptor as
/// given, no other descriptor of the caller (closefrom 3) and no blocked signal (serve
/// blocks its stop signals; a child that inherited that mask would ignore the SIGTERM
/// that ends it); the caller's environment, or the one given (the helper's is empty).
public enum ChildProcess {
    /// Where one of the child's standard descriptors comes from.
    public enum Source {
        /// A copy of this descriptor of ours.
        case descriptor(Int32)
        /// This file, opened with these flags.
        case file(String, flags: Int32)
    }

    /// Starts `arguments` (`arguments[0]` looked up in PATH, unless `executable` names the
    /// file) with `standard` descriptors (0, 1, 2; one not given is inherited) and
    /// `environment` ("NAME=value" each; nil: this process's); the pid, or the errno it
    /// failed with.
    public static func spawn(
        _ arguments: [String], executable: String? = nil, standard: [Int32: Source], environment: [String]? = nil
    ) -> Result<pid_t, SpawnFailure> {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        let setup =
            standard.sorted(by: { $0.key < $1.key }).map { target, source in
                switch source {
                case .descriptor(let descriptor): return posix_spawn_file_actions_adddup2(&actions, descriptor, target)
                case .file(let path, let flags):
                    return posix_spawn_file_actions_addopen(&actions, target, path, flags, 0)
                }
            } + [
                sr_spawn_addclosefrom(&actions, 3),
                sr_spawnattr_unblock_signals(&attributes) == 0 ? 0 : EINVAL,
            ]
        if let failure = setup.first(where: { $0 != 0 }) { return .failure(SpawnFailure(errno: failure)) }
        let argv = arguments.map { strdup($0) } + [nil]
        // The given environment, or this process's own as it stands (environ, not a copy).
        let given = environment.map { $0.map { strdup($0) } + [nil] }
        defer { (argv + (given ?? [])).forEach { free($0) } }
        var pid: pid_t = 0
        func spawn(_ variables: UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
            executable.map { posix_spawn(&pid, $0, &actions, &attributes, argv, variables) }
                ?? posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, variables)
        }
        let status = given.map { spawn($0) } ?? spawn(environ)
        return status == 0 ? .success(pid) : .failure(SpawnFailure(errno: status))
    }

    /// Why a child did not start.
    public struct SpawnFailure: Error {
        /// posix_spawn's error number.
        public let errno: Int32
    }
}
