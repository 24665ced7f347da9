// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Glibc

/// A PAM session held open the way su, login or sshd hold theirs: the driver runs its
/// operations up to `wait`, then stays alive until `release()` (SIGUSR1) lets it run the
/// rest (typically `close`) and exit, or `kill()` ends it without them (a host killed
/// with SIGKILL). Started in the background by a shell, its output in a file.
public final class HeldLogin {
    /// The driver's pid, as it printed it at `wait`.
    public private(set) var pid: Int32 = 0
    private let output: String

    /// Runs `command` (a shell command line that starts the driver with a `wait`
    /// operation) through `launch` (which runs a line with /bin/sh), in the background,
    /// its output to `output`; waits until the driver reached `wait`. The background job
    /// closes every inherited descriptor above 2 first: Foundation's Process leaves its
    /// pipes open in children, and a job holding them would keep `launch` waiting forever.
    public init(output: String, launch: (String) throws -> ProcessResult, command: String) throws {
        self.output = output
        let quoted = "'" + command.replacingOccurrences(of: "'", with: "'\\''") + "'"
        let detach =
            #"for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done 2>/dev/null; "#
            + #"exec /bin/sh -c "$0""#
        _ = try launch("/bin/bash -c '\(detach)' \(quoted) >\(output) 2>&1 </dev/null &")
        try waitFor("result wait: pid ")
        guard let line = transcript.split(separator: "\n").first(where: { $0.hasPrefix("result wait: pid ") }),
            let pid = Int32(line.dropFirst("result wait: pid ".count))
        else {
            throw Sandbox.SandboxFailure(message: "no pid from the held login: \(transcript)")
        }
        self.pid = pid
    }

    /// A driver still held when the test ends (a failed assertion skipped its release) is
    /// killed, so no test leaves a process behind.
    deinit {
        let command = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
        if pid > 0 && command.contains("secureroom-pam-driver") { Glibc.kill(pid, SIGKILL) }
    }

    /// What the driver printed so far.
    public var transcript: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }

    /// Lets the driver run its operations after `wait` and waits for it to exit.
    public func release() throws {
        Glibc.kill(pid, SIGUSR1)
        try waitForExit()
    }

    /// Ends the driver with SIGKILL: its session never closes.
    public func kill() throws {
        Glibc.kill(pid, SIGKILL)
        try waitForExit()
    }

    private func waitFor(_ text: String) throws {
        for _ in 0..<200 where !transcript.contains(text) { usleep(50_000) }
        guard transcript.contains(text) else {
            throw Sandbox.SandboxFailure(message: "held login: no '\(text)' in \(transcript)")
        }
    }

    /// Until /proc shows the process gone (or a zombie nobody reaps yet).
    private func waitForExit() throws {
        for _ in 0..<200 {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return }
            if stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z") { return }
            usleep(50_000)
        }
        throw Sandbox.SandboxFailure(message: "held login \(pid) did not exit: \(transcript)")
    }
}
