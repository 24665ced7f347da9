// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Fuzzes the decoder of the helper's reply line, `HelperReply(line:)` and the lockout
/// status it carries (`HelperReply.decode`, docs/SECURITY.md §3). The helper runs setuid
/// root, but its reply crosses a pipe that the calling program also holds.
///
/// Properties of a line that parses:
/// - its re-rendering (`line`) is printable ASCII and parses back to the same reply
///   (same line, same exit status);
/// - a lockout status decodes to a value that encodes and decodes back to itself.
import FuzzSupport

@testable import SecureRoomCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHelperReply(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let (pick, bytes) = selector(fuzzBytes(data, size))
    let text = Substring(String(decoding: bytes, as: UTF8.self))
    if pick & 1 == 0 {
        guard let reply = HelperReply(line: text) else { return 0 }
        let line = reply.line
        require(line.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7f }, "reply renders non-printable text")
        guard let again = HelperReply(line: Substring(line)) else {
            fatalError("fuzz property violated: rendered reply does not parse: \(UserName.quoted(line))")
        }
        require(again.line == line, "rendered reply parses to another reply")
        require(again.exitStatus == reply.exitStatus, "exit status changes across a round trip")
    } else {
        guard let status = HelperReply.decode(text) else { return 0 }
        require(status.failures >= 0, "negative failure count")
        require(
            HelperReply.decode(Substring(HelperReply.encode(status))) == status,
            "lockout status does not round-trip")
    }
    return 0
}
