// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc
import SecureRoomCore

/// A bound on how long a line of standard input may take to arrive, whole.
public struct InputTimeLimit {
    /// When the line must be complete.
    let deadline: Deadline
    /// Its length, for the message.
    public let seconds: Int

    /// A limit `seconds` from now.
    public init(seconds: Int) {
        self.seconds = seconds
        deadline = Deadline(millisecondsFromNow: Int64(seconds) * 1000)
    }
}

/// Standard input one byte at a time, as the PIN and secret readers take it: nothing past
/// the line they want is consumed, and no buffer but theirs ever holds the bytes.
enum StandardInput {
    /// The next byte; nil at the end of input (or a read error). With a `limit`, a byte
    /// that has not come by its end throws `PINEntry.Failure.timedOut`: the setuid helper
    /// never waits without end for a caller that went quiet (docs/SECURITY.md §3.1).
    static func nextByte(within limit: InputTimeLimit? = nil) throws -> UInt8? {
        var byte: UInt8 = 0
        // With a limit, reads never block: a byte that another holder of the same pipe
        // takes between poll and read must not leave this read waiting without end.
        if limit != nil {
            let flags = fcntl(STDIN_FILENO, F_GETFL)
            if flags >= 0 && flags & O_NONBLOCK == 0 { _ = fcntl(STDIN_FILENO, F_SETFL, flags | O_NONBLOCK) }
        }
        while true {
            if let limit {
                var input = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                let ready = limit.deadline.hasPassed ? 0 : poll(&input, 1, limit.deadline.remainingMilliseconds)
                if ready < 0 && errno == EINTR { continue }
                if ready == 0 { throw PINEntry.Failure.timedOut(seconds: limit.seconds) }
                if ready < 0 { return nil }
            }
            let count = Glibc.read(STDIN_FILENO, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                // Non-blocking (set by an earlier read with a limit): with a limit, poll
                // again; without one, wait for a byte as a blocking read would.
                if limit == nil {
                    var input = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                    if poll(&input, 1, -1) < 0 && errno != EINTR { return nil }
                }
                continue
            }
            return count == 1 ? byte : nil
        }
    }
}
