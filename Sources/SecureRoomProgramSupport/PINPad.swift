// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomSystem
import Glibc
import SecureRoomCore

/// The SecureRoom PIN pad on a terminal, after the iOS app's passcode screen:
///
///     PIN: [●][●][ ][ ]
///
/// One box per digit, digits only (anything else rings the bell), Backspace steps back,
/// and the PIN is submitted as soon as the last box is filled. Ctrl-C, Ctrl-D and Escape
/// cancel. Echo and signals are off while it runs and the terminal is always restored.
public struct PINPad {
    /// The text before the boxes.
    public let prompt: String
    /// How many boxes.
    public let format: PINFormat

    /// A pad for `format`, shown after `prompt`.
    public init(prompt: String, format: PINFormat) {
        self.prompt = prompt
        self.format = format
    }

    /// The boxes for `filled` digits entered.
    public func render(filled: Int) -> String {
        (0..<format.digits).map { $0 < filled ? "[●]" : "[ ]" }.joined()
    }

    /// Shows the pad on the terminal and reads one PIN.
    public func read() throws -> SecretBytes {
        try RawTerminal.reading(closing: "\n") {
            let pin = SecretBytes(count: format.digits)
            var filled = 0
            ToolOutput.writeError("\r\u{1b}[K\(prompt)\(render(filled: 0))")
            while filled < format.digits {
                var byte: UInt8 = 0
                let count = Glibc.read(STDIN_FILENO, &byte, 1)
                if count < 0 && errno == EINTR { continue }
                guard count == 1 else { throw PINEntry.Failure.cancelled }
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"):
                    pin.withUnsafeMutableBytes { $0[filled] = byte }
                    filled += 1
                case 0x7f, 0x08:
                    if filled > 0 {
                        filled -= 1
                        pin.withUnsafeMutableBytes { $0[filled] = 0 }
                    }
                case 0x03, 0x04, 0x1b:
                    throw PINEntry.Failure.cancelled
                default:
                    ToolOutput.writeError("\u{07}")
                }
                byte = 0
                ToolOutput.writeError("\r\u{1b}[K\(prompt)\(render(filled: filled))")
            }
            return pin
        }
    }
}
