// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomSystem
import Glibc
import SecureRoomCore

/// Reading a PIN in SecureRoom's own tools: the PIN pad on a terminal, one plain line
/// when standard input is a pipe or file (provisioning scripts, tests).
public enum PINEntry {
    /// Why no PIN was read.
    public enum Failure: Error, TranslatableDescription {
        /// The user pressed Ctrl-C, Ctrl-D or Escape.
        case cancelled
        /// Standard input ended before a line was read.
        case endOfInput
        /// The whole line did not come within `seconds`.
        case timedOut(seconds: Int)

        /// The explanation in the user's language.
        public var localizedDescription: String { text(.user) }

        /// A one-line explanation.
        public func text(_ translate: Translation) -> String {
            switch self {
            case .cancelled: return translate("cancelled")
            case .endOfInput: return translate("no PIN on standard input")
            case .timedOut(let seconds): return translate("no answer within {seconds} s", ["seconds": String(seconds)])
            }
        }
    }

    /// Reads a PIN of `format`: the PIN pad if standard input is a terminal (unless
    /// `forceLine`), otherwise one line from standard input.
    public static func read(prompt: String, format: PINFormat, forceLine: Bool = false) throws -> SecretBytes {
        if !forceLine && isatty(STDIN_FILENO) == 1 {
            return try PINPad(prompt: prompt, format: format).read()
        }
        return try readLine(format: format)
    }

    /// One line from standard input (without its newline) as a PIN of `format`.
    /// Reads byte by byte into a wiped buffer, so nothing past the line is consumed and
    /// no Swift `String` ever holds the PIN. Longer lines, and lines with a NUL byte, are
    /// refused unread. With a `limit`, a line not complete within it is `Failure.timedOut`.
    public static func readLine(format: PINFormat, within limit: InputTimeLimit? = nil) throws -> SecretBytes {
        let buffer = SecretBytes(count: PINFormat.maximumInputLength + 1)
        var length = 0
        var sawAnything = false
        try buffer.withUnsafeMutableBytes { bytes in
            var byte: UInt8 = 0
            while true {
                guard let next = try StandardInput.nextByte(within: limit) else { break }
                byte = next
                sawAnything = true
                if byte == UInt8(ascii: "\n") { break }
                // A NUL would end the PIN early in C; here it is simply not a digit.
                guard byte != 0, length < PINFormat.maximumInputLength else {
                    byte = 0
                    throw SecureRoomError.malformedPIN(digits: format.digits)
                }
                bytes[length] = byte
                length += 1
            }
            byte = 0
        }
        guard sawAnything else { throw Failure.endOfInput }
        return try buffer.withUnsafeBytes { try format.pin(from: UnsafeRawBufferPointer(rebasing: $0.prefix(length))) }
    }
}
