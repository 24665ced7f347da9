// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// Simultaneous attempts for one user: every failure recorded, and no more argon2 runs
/// than the policy allows. argon2 runs are counted independently of the module, by an
/// LD_PRELOAD shim around libargon2's argon2_ctx (Fixtures/argon2-counter.c).
final class ConcurrencyTests: XCTestCase {
    let user = "daemon"

    /// Starts `count` drivers at once, each answering with a wrong PIN; returns their codes
    /// and the number of argon2 runs they made.
    private func attack(_ sandbox: Sandbox, count: Int) throws -> (codes: [Int32], argon2Runs: Int) {
        let library = try sandbox.argon2CounterLibrary()
        let counts = sandbox.root + "/argon2-calls"
        XCTAssertTrue(FileManager.default.createFile(atPath: counts, contents: nil))
        var codes = [Int32](repeating: -1, count: count)
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let wrong = String(format: "%04d", 1000 + index)  // all distinct: each one a real guess
            let result = try? sandbox.pam(
                user: user, responses: [wrong],
                environment: ["LD_PRELOAD": library, "ARGON2_COUNTER_FILE": counts])
            lock.lock()
            codes[index] = result?.code ?? -1
            lock.unlock()
        }
        let runs = try Data(contentsOf: URL(fileURLWithPath: counts)).count
        return (codes, runs)
    }

    func testFiftySimultaneousWrongPINsAreAllCounted() throws {
        let sandbox = try Sandbox.enrolled(
            user, pin: "7391", configuration: Sandbox.fastKDF + "deny = 100\nschedule =\n")
        let (codes, runs) = try attack(sandbox, count: 50)
        XCTAssertEqual(codes.filter { $0 == PAMCode.authError }.count, 50, "\(codes)")
        XCTAssertEqual(try sandbox.status(user)["failures"] as? Int, 50)
        XCTAssertEqual(runs, 50, "one argon2 run per counted attempt")
    }

    func testFiftySimultaneousWrongPINsStopAtTheCap() throws {
        let sandbox = try Sandbox.enrolled(
            user, pin: "7391", configuration: Sandbox.fastKDF + "deny = 20\nschedule =\n")
        let (codes, runs) = try attack(sandbox, count: 50)
        XCTAssertEqual(codes.filter { $0 == PAMCode.authError }.count, 20, "\(codes)")
        XCTAssertEqual(codes.filter { $0 == PAMCode.maxTries }.count, 30, "\(codes)")
        XCTAssertEqual(try sandbox.status(user)["failures"] as? Int, 20)
        XCTAssertEqual(runs, 20, "refusals cost no argon2")
    }

    func testDefaultScheduleAllowsFiveChecksThenRefusesForFree() throws {
        let sandbox = try Sandbox.enrolled(user, pin: "7391")
        let (codes, runs) = try attack(sandbox, count: 50)
        XCTAssertEqual(codes.filter { $0 == PAMCode.authError }.count, 5, "\(codes)")
        XCTAssertEqual(codes.filter { $0 == PAMCode.maxTries }.count, 45, "\(codes)")
        XCTAssertEqual(runs, 5)
        XCTAssertEqual(try sandbox.status(user)["state"] as? String, "delayed")
    }
}
