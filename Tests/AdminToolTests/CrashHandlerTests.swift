// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// Root runs `secureroom` through $PATH in a directory another user controls, which
/// holds a program named `swift-backtrace`. The Swift runtime looks for its backtracer
/// relative to argv[0] — here the current directory — and would exec it, as root, on a
/// crash. The tool must die of the signal and run nothing.
final class CrashHandlerTests: XCTestCase {
    func testACrashRunsNoBacktracerFromTheCurrentDirectory() throws {
        let sandbox = try Sandbox.enrolled("daemon", pin: "7391")
        let hostile = sandbox.root + "/hostile"
        let marker = hostile + "/backtracer-ran"
        try FileManager.default.createDirectory(atPath: hostile, withIntermediateDirectories: false)
        try "#!/bin/sh\nid > \(marker)\n".write(toFile: hostile + "/swift-backtrace", atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(hostile + "/swift-backtrace", 0o755), 0)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let command =
            #"cd "$1" && PATH="$2:$PATH" exec env -u SWIFT_BACKTRACE "#
            + #"secureroom change daemon --stdin --dir "$3" --config "$4""#
        process.arguments = ["-c", command, "sh", hostile, Artifacts.releaseDirectory, sandbox.state, sandbox.config]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait until the tool itself (not sh or env) is blocked reading its PIN.
        let pid = process.processIdentifier
        var waiting = false
        for _ in 0..<250 where !waiting {
            let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) ?? ""
            let channel = (try? String(contentsOfFile: "/proc/\(pid)/wchan", encoding: .utf8)) ?? ""
            waiting = executable.hasSuffix("/secureroom") && channel.hasSuffix("pipe_read")
            if !waiting { usleep(20_000) }
        }
        XCTAssertTrue(waiting, "secureroom did not start")
        kill(pid, SIGSEGV)
        // The runtime's handler, if present, waits on its backtracer: do not wait forever.
        for _ in 0..<500 where process.isRunning { usleep(20_000) }
        if process.isRunning {
            kill(pid, SIGKILL)
            XCTFail("secureroom hung after SIGSEGV: the runtime's crash handler is installed")
        }
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        XCTAssertEqual(process.terminationStatus, SIGSEGV)
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker), "the planted backtracer ran as root")
    }
}
