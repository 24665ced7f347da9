// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc
import XCTest

@testable import SecureRoomCore

/// Which processes hold a session (docs/FORMAT.md §8): a live one by pid and start time;
/// an exited one, even before its parent reaps it, none.
final class ProcessIdentityTests: XCTestCase {
    func testThisProcessIsAliveWithItsStartTime() throws {
        let me = try XCTUnwrap(ProcessIdentity.current())
        XCTAssertEqual(me.pid, getpid())
        XCTAssertTrue(me.isAlive)
        XCTAssertFalse(ProcessIdentity(pid: me.pid, start: me.start + 1).isAlive, "a reused pid is another process")
    }

    /// A `su` killed with SIGKILL is a zombie until its parent collects it; its session
    /// ended with it (regression: a session counted live until the reaping).
    func testAZombieIsNoLongerAlive() throws {
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("60"), nil]
        defer { argv.forEach { free($0) } }
        XCTAssertEqual(posix_spawn(&pid, "/bin/sleep", nil, nil, argv, environ), 0)
        let running = try XCTUnwrap(ProcessIdentity.of(pid))
        XCTAssertTrue(running.isAlive)
        kill(pid, SIGKILL)
        var state = ""
        for _ in 0..<200 {
            state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            if state.contains(") Z ") { break }
            usleep(10_000)
        }
        XCTAssertTrue(state.contains(") Z "), "not a zombie yet: \(state)")
        XCTAssertNil(ProcessIdentity.of(pid))
        XCTAssertFalse(running.isAlive)
        var status: Int32 = 0
        XCTAssertEqual(waitpid(pid, &status, 0), pid)
    }
}
