// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc
import SecureRoomCore

/// What the tools write besides their results: prompts and errors on standard error
/// (unbuffered, so they appear before a read), and the one-line message for the errors
/// every tool shares.
public enum ToolOutput {
    /// Writes `text` to standard error as is.
    public static func writeError(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    /// Writes "`program`: `message`" and a newline to standard error.
    public static func printError(program: String, _ message: String) {
        writeError("\(program): \(message)\n")
    }

    /// The message for an error from the shared core and input readers (state, PIN entry,
    /// overlong input); nil for any other error.
    public static func message(for error: any Error) -> String? {
        switch error {
        case let error as SecureRoomError: return error.localizedDescription
        case let error as PINEntry.Failure: return error.localizedDescription
        case let error as HiddenLine.TooLong: return error.description
        default: return nil
        }
    }
}
