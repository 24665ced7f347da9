// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Glibc

/// Another process that takes a record's lock and keeps it, as a user's stopped su would
/// (docs/DESIGN.md §4, "A stalled holder"): one python3 process, so the lock is its own
/// (flock(1) would share it with the child it runs).
public final class LockHolderProcess {
    /// The holder.
    public let process = Process()

    /// Starts the holder of `path` (an existing file) for at most `seconds`, and returns
    /// once it holds the lock: until then a try of this process's own succeeds.
    public init(path: String, seconds: Int = 60) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c",
            "import fcntl, sys, time; f = open(sys.argv[1]); fcntl.flock(f, fcntl.LOCK_EX); time.sleep(\(seconds))",
            path,
        ]
        try process.run()
        for _ in 0..<100 {
            let probe = open(path, O_RDONLY | O_CLOEXEC)
            defer { close(probe) }
            if flock(probe, LOCK_EX | LOCK_NB) != 0 { return }
            flock(probe, LOCK_UN)
            usleep(50_000)
        }
    }

    /// Ends the holder if it still runs.
    public func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    deinit { if process.isRunning { process.terminate() } }
}
