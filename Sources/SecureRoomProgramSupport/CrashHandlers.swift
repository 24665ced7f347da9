// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc

/// The Swift runtime's crash handlers, put back to the system defaults.
///
/// At startup the runtime installs handlers that, on a crash, exec `swift-backtrace`.
/// It looks for that program relative to argv[0], and a command run through $PATH has
/// an argv[0] without a slash: the *current directory*. Root running `secureroom` in a
/// directory another user controls would run their `swift-backtrace` as root on any
/// crash (docs/SECURITY.md §4 shows it happening). Setuid processes are protected by
/// the runtime itself (AT_SECURE); root is not. SecureRoom's tools call this first.
public enum CrashHandlers {
    /// The signals the runtime catches.
    static let caught: [Int32] = [SIGQUIT, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSEGV, SIGTRAP]

    /// Restores the default action for every signal the runtime catches: a crash is a
    /// plain signal death (and a core dump where the system allows one), nothing runs.
    public static func restoreDefaults() {
        for signalNumber in caught { signal(signalNumber, SIG_DFL) }
    }
}
