// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomSystem
import Glibc

/// SIGTERM, SIGINT and SIGHUP as a request to stop: blocked from creation on, delivered
/// only while the loop waits on the bus (`BusConnection.run`), where the C handler
/// (`sr_catch_stop_signals`) notes them.
struct StopSignals {
    /// The signal mask to wait with (the one before these were blocked, without them).
    let unblocked: sigset_t

    /// Blocks the signals and installs the handler.
    init() throws {
        var during = sigset_t()
        guard sr_catch_stop_signals(&during) == 0 else {
            throw BusFailure.failed("cannot set up the stop signals: \(String(cString: strerror(errno)))")
        }
        unblocked = during
    }

    /// Whether one of them came.
    var received: Bool { sr_stop_requested() != 0 }
}
