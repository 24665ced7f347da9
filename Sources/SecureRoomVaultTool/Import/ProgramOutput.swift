// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomSystem
import Glibc
import SecureRoomCore
import SecureRoomProgramSupport
import SecureRoomVault

/// A program run to completion as the user, in the user's environment (gpg for `import
/// --from pass` needs its agent), with standard input from /dev/null: its exit status, its
/// standard output in a wiped buffer (a decrypted secret) and the end of its standard
/// error, for a message.
struct ProgramOutput {
    /// The exit status (128 + N for a signal).
    let status: Int32
    /// Standard output, at most `limit` bytes.
    let output: SecretBytes
    /// The last line of standard error, for a message.
    let errorLine: String

    /// Runs `arguments[0]` (looked up in PATH) with `arguments`; output beyond `limit`
    /// bytes is an error.
    init(_ arguments: [String], limit: Int) throws {
        var outputPipe: [Int32] = [-1, -1]
        var errorPipe: [Int32] = [-1, -1]
        guard pipe(&outputPipe) == 0 else {
            throw SecureRoomError.system(operation: "pipe", path: arguments[0], errno: errno)
        }
        guard pipe(&errorPipe) == 0 else {
            let failure = errno
            outputPipe.forEach { close($0) }
            throw SecureRoomError.system(operation: "pipe", path: arguments[0], errno: failure)
        }
        let spawned = ChildProcess.spawn(
            arguments,
            standard: [
                STDIN_FILENO: .file("/dev/null", flags: O_RDONLY), STDOUT_FILENO: .descriptor(outputPipe[1]),
                STDERR_FILENO: .descriptor(errorPipe[1]),
            ])
        close(outputPipe[1])
        close(errorPipe[1])
        defer {
            close(outputPipe[0])
            close(errorPipe[0])
        }
        let pid: pid_t
        switch spawned {
        case .success(let child): pid = child
        case .failure(let failure):
            throw SecureRoomError.system(operation: "run", path: arguments[0], errno: failure.errno)
        }
        // Both pipes at once: a program that fills one while we wait on the other would hang.
        // Room for the largest output up front: a growing array would leave copies unwiped.
        var collected: [UInt8] = []
        collected.reserveCapacity(limit + 65_536)
        var errors: [UInt8] = []
        defer { collected.withUnsafeMutableBytes { sr_explicit_bzero($0.baseAddress, $0.count) } }
        var open = [outputPipe[0], errorPipe[0]]
        var chunk = [UInt8](repeating: 0, count: 65_536)
        defer { chunk.withUnsafeMutableBytes { sr_explicit_bzero($0.baseAddress, $0.count) } }
        while !open.isEmpty {
            var descriptors = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if poll(&descriptors, nfds_t(descriptors.count), -1) < 0 {
                if errno == EINTR { continue }
                kill(pid, SIGKILL)
                break
            }
            for descriptor in descriptors where descriptor.revents != 0 {
                let count = read(descriptor.fd, &chunk, chunk.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else {
                    open.removeAll { $0 == descriptor.fd }
                    continue
                }
                if descriptor.fd == outputPipe[0] {
                    collected += chunk[..<count]
                } else {
                    errors = Array((errors + chunk[..<count]).suffix(4_096))
                }
            }
            guard collected.count <= limit else {
                kill(pid, SIGKILL)
                break
            }
        }
        var waited: Int32 = 0
        var reaped = waitpid(pid, &waited, 0)
        while reaped < 0 && errno == EINTR { reaped = waitpid(pid, &waited, 0) }
        // No status (SIGCHLD ignored by whoever started us): never take that for success.
        guard reaped == pid else { throw VaultError.invalid("\(arguments[0]): its exit status is unknown") }
        status = waited & 0x7f == 0 ? (waited >> 8) & 0xff : 128 + (waited & 0x7f)
        guard collected.count <= limit else {
            throw VaultError.invalid("\(arguments[0]) wrote more than \(limit) bytes")
        }
        output = collected.withUnsafeBytes { SecretBytes(copying: $0) }
        errorLine =
            String(decoding: errors, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
    }
}
