// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomSystem
import Glibc
import SecureRoomCore

/// Standard input in raw mode (nothing echoed, one byte at a time) for the length of one
/// read, for the PIN pad and masked lines.
enum RawTerminal {
    /// Runs `body` in raw mode; afterwards restores the terminal and writes `closing` to
    /// standard error (the line the prompt was on ends).
    static func reading<Result>(closing: String, _ body: () throws -> Result) throws -> Result {
        var saved = [UInt8](repeating: 0, count: sr_termios_size())
        guard sr_tty_raw(STDIN_FILENO, &saved, saved.count) == 0 else {
            throw SecureRoomError.system(operation: "tcsetattr", path: "standard input", errno: errno)
        }
        defer {
            _ = sr_tty_restore(STDIN_FILENO, saved)
            ToolOutput.writeError(closing)
        }
        return try body()
    }
}
