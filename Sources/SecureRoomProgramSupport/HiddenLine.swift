// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomSystem
import Glibc
import SecureRoomCore

/// One line of secret text that is not a PIN (a recovery key, a vault value): typed at a
/// prompt with nothing echoed, or read from standard input when it is not a terminal.
/// Bytes go straight into a wiped buffer.
public enum HiddenLine {
    /// Reads one line of at most `limit` bytes (without its newline); longer is an error.
    public static func read(prompt: String, limit: Int) throws -> SecretBytes {
        isatty(STDIN_FILENO) == 1 ? try readMasked(prompt: prompt, limit: limit) : try readPiped(limit: limit)
    }

    /// One line of at most `limit` bytes from a pipe or socket, whole within `timeLimit`,
    /// or `PINEntry.Failure.timedOut` (the helper's relayed password conversation).
    public static func readPiped(limit: Int, within timeLimit: InputTimeLimit) throws -> SecretBytes {
        try collect(limit: limit, atEndOfInput: .end, within: timeLimit) { byte, _ in byte == 0x0a ? .end : .keep }
    }

    /// One line of at most `limit` bytes, echoed as typed at a terminal (an answer to a
    /// question that is not secret), read the same way from a pipe.
    public static func readVisible(limit: Int) throws -> SecretBytes { try readPiped(limit: limit) }

    /// The error for a line longer than `limit`.
    public struct TooLong: Error, CustomStringConvertible {
        /// The limit that was passed.
        public let limit: Int
        /// One line for the user.
        public var description: String { "the input is longer than \(limit) bytes" }
    }

    /// At a terminal: raw mode, nothing echoed; Enter ends, Backspace erases, Ctrl-C/D cancel.
    public static func readMasked(prompt: String, limit: Int) throws -> SecretBytes {
        try RawTerminal.reading(closing: "\r\n") {
            ToolOutput.writeError(prompt)
            return try collect(limit: limit) { byte, length in
                switch byte {
                case 0x0d, 0x0a: return .end
                case 0x7f, 0x08: return length > 0 ? .erase : .skip
                case 0x03, 0x04, 0x1b: throw PINEntry.Failure.cancelled
                default: return .keep
                }
            }
        }
    }

    private static func readPiped(limit: Int) throws -> SecretBytes {
        try collect(limit: limit, atEndOfInput: .end) { byte, _ in byte == 0x0a ? .end : .keep }
    }

    private enum Step { case keep, erase, skip, end }

    /// Reads byte by byte, letting `decide` classify each one.
    private static func collect(
        limit: Int, atEndOfInput: Step? = nil, within timeLimit: InputTimeLimit? = nil,
        _ decide: (UInt8, Int) throws -> Step
    ) throws -> SecretBytes {
        let buffer = SecretBytes(count: limit)
        var length = 0
        var sawAnything = false
        try buffer.withUnsafeMutableBytes { bytes in
            while true {
                var byte: UInt8 = 0
                defer { byte = 0 }
                guard let next = try StandardInput.nextByte(within: timeLimit) else {
                    guard atEndOfInput != nil, sawAnything else { throw PINEntry.Failure.endOfInput }
                    return
                }
                byte = next
                sawAnything = true
                switch try decide(byte, length) {
                case .end: return
                case .skip: continue
                case .erase:
                    length -= 1
                    bytes[length] = 0
                case .keep:
                    guard length < limit else { throw TooLong(limit: limit) }
                    bytes[length] = byte
                    length += 1
                }
            }
        }
        return buffer.withUnsafeBytes { SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0.prefix(length))) }
    }
}
