// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomSystem
import Glibc
import SecureRoomCore
import SecureRoomProgramSupport
import SecureRoomVault

/// A pinentry(1) program (pinentry-gnome3, -gtk2, -qt, -curses, -tty: whichever the
/// system's alternative or `--pinentry` names), spoken to in the Assuan protocol as
/// gpg-agent does: SETTITLE, SETDESC, SETPROMPT, SETERROR, GETPIN, MESSAGE. The PIN comes
/// back percent-encoded on a `D` line and is decoded into a wiped buffer. A terminal
/// pinentry uses $GPG_TTY (OPTION ttyname), as gpg's does.
final class Pinentry {
    private let pid: pid_t
    private let input: Int32
    private let output: Int32
    private var pending: [UInt8] = []

    /// Starts `program` and reads its greeting.
    init(program: String) throws {
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        guard pipe(&toChild) == 0 else { throw SecureRoomError.system(operation: "pipe", path: program, errno: errno) }
        guard pipe(&fromChild) == 0 else {
            close(toChild[0])
            close(toChild[1])
            throw SecureRoomError.system(operation: "pipe", path: program, errno: errno)
        }
        let spawned = ChildProcess.spawn(
            [program], standard: [STDIN_FILENO: .descriptor(toChild[0]), STDOUT_FILENO: .descriptor(fromChild[1])])
        close(toChild[0])
        close(fromChild[1])
        (input, output) = (toChild[1], fromChild[0])
        switch spawned {
        case .success(let child): pid = child
        case .failure(let failure):
            close(input)
            close(output)
            throw VaultError.invalid(
                "cannot start the PIN prompt \(program): \(String(cString: strerror(failure.errno)))")
        }
        _ = try readReply()
        if let tty = getenv("GPG_TTY").map({ String(cString: $0) }), !tty.isEmpty {
            _ = try command("OPTION ttyname=\(tty)")
        }
        if let term = getenv("TERM").map({ String(cString: $0) }), !term.isEmpty {
            _ = try command("OPTION ttytype=\(term)")
        }
    }

    deinit {
        var bye = Array("BYE\n".utf8)
        _ = write(input, &bye, bye.count)
        close(input)
        close(output)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        pending.withUnsafeMutableBytes { sr_explicit_bzero($0.baseAddress, $0.count) }
    }

    /// Sets the window title, the description, the prompt and (nil: none) the error line
    /// shown above the field.
    func show(title: String, description: String, prompt: String, error: String?) throws {
        _ = try command("SETTITLE " + Self.encoded(title))
        _ = try command("SETDESC " + Self.encoded(description))
        _ = try command("SETPROMPT " + Self.encoded(prompt))
        if let error { _ = try command("SETERROR " + Self.encoded(error)) }
    }

    /// Asks for the PIN; nil when the user cancelled.
    func readPIN() throws -> SecretBytes? {
        try send("GETPIN")
        var value = SecretBytes(count: 0)
        while true {
            var line = try readLine()
            defer { line.withUnsafeMutableBytes { sr_explicit_bzero($0.baseAddress, $0.count) } }
            if line.starts(with: Array("D ".utf8)) {
                value = try Self.decoded(line.dropFirst(2))
            } else if line.starts(with: Array("OK".utf8)) {
                return value
            } else if line.starts(with: Array("ERR".utf8)) {
                return nil
            }
        }
    }

    /// Shows `text` with an OK button (a lockout, an error) and waits for it.
    func message(_ text: String) throws {
        _ = try command("SETDESC " + Self.encoded(text))
        _ = try command("MESSAGE")
    }

    /// Sends `line` and returns its final reply; an ERR reply is an error.
    private func command(_ line: String) throws -> String {
        try send(line)
        return try readReply()
    }

    private func send(_ line: String) throws {
        var bytes = Array((line + "\n").utf8)
        guard write(input, &bytes, bytes.count) == bytes.count else {
            throw VaultError.invalid("the PIN prompt stopped answering")
        }
    }

    /// Reads to the final OK (returned) or ERR (thrown) line; status and comment lines are skipped.
    private func readReply() throws -> String {
        while true {
            let line = try readLine()
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix("OK") { return text }
            if text.hasPrefix("ERR") { throw VaultError.invalid("the PIN prompt answered \(text)") }
        }
    }

    /// The next line, without its newline (at most 4 KiB; Assuan's limit is 1000 bytes).
    private func readLine() throws -> [UInt8] {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(pending[..<newline])
                pending.withUnsafeMutableBytes { sr_explicit_bzero($0.baseAddress, newline + 1) }
                pending.removeSubrange(...newline)
                return line
            }
            guard pending.count < 4_096 else { throw VaultError.invalid("the PIN prompt sent an overlong line") }
            var chunk = [UInt8](repeating: 0, count: 1_024)
            defer { chunk.withUnsafeMutableBytes { sr_explicit_bzero($0.baseAddress, $0.count) } }
            let count = read(output, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw VaultError.invalid("the PIN prompt closed") }
            pending += chunk[..<count]
        }
    }

    /// Assuan's escaping of a parameter: %, CR, LF and bytes below 0x20 as %XX.
    static func encoded(_ text: String) -> String {
        var out: [UInt8] = []
        for byte in text.utf8 {
            if byte == UInt8(ascii: "%") || byte < 0x20 {
                let hex = Array("0123456789ABCDEF".utf8)
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A `D` line's data, %XX decoded, into a wiped buffer.
    static func decoded(_ data: ArraySlice<UInt8>) throws -> SecretBytes {
        var bytes: [UInt8] = []
        defer { bytes.withUnsafeMutableBytes { sr_explicit_bzero($0.baseAddress, $0.count) } }
        var index = data.startIndex
        while index < data.endIndex {
            if data[index] == UInt8(ascii: "%"), index + 2 < data.endIndex,
                let value = UInt8(String(decoding: data[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index += 3
            } else {
                bytes.append(data[index])
                index += 1
            }
        }
        return bytes.withUnsafeBytes { SecretBytes(copying: $0) }
    }
}
