// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc
import SecureRoomCore
import SecureRoomProgramSupport
import SecureRoomVault

/// A secret's value: from a masked prompt on a terminal (one line, nothing echoed), or
/// every byte of standard input otherwise (stored exactly, newlines included).
enum ValueInput {
    /// Reads at most `limit` bytes; more is an error, not a truncation.
    static func read(prompt: String, limit: Int) throws -> SecretBytes {
        isatty(STDIN_FILENO) == 1
            ? try HiddenLine.readMasked(prompt: prompt, limit: min(limit, 4096)) : try readAll(limit: limit)
    }

    private static func readAll(limit: Int) throws -> SecretBytes {
        let buffer = SecretBytes(count: limit + 1)
        var length = 0
        try buffer.withUnsafeMutableBytes { bytes in
            while length <= limit {
                let count = Glibc.read(STDIN_FILENO, bytes.baseAddress?.advanced(by: length), limit + 1 - length)
                if count < 0 && errno == EINTR { continue }
                guard count >= 0 else {
                    throw SecureRoomError.system(operation: "read", path: "standard input", errno: errno)
                }
                if count == 0 { break }
                length += count
            }
        }
        guard length <= limit else { throw VaultError.invalid("a value is at most \(limit) bytes") }
        return buffer.withUnsafeBytes { SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0.prefix(length))) }
    }
}
