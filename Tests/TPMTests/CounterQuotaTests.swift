// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

@testable import SecureRoomCore
@testable import TPMESAPI

/// The PIN indices SecureRoom defines on a hardened chip, where only the TPM recovery
/// secret frees one: each is accounted for (named by a record, the decoys, or an entry of
/// the chip's ledger, docs/FORMAT.md §1) from before it is defined, and the counters a
/// user leaves behind count against that user alone.
final class CounterQuotaTests: XCTestCase {
    /// Two real users (daemon, uid 1; bin, uid 2) changing their own PINs through the
    /// setuid helper: eight changes by daemon leave eight counters, which stop daemon's
    /// ninth change (told so, and what the administrator runs) but never bin's.
    func testOneUsersOldCountersNeverRefuseAnotherUsersChange() throws {
        setenv("TSS2_LOG", "all+none", 1)
        let tpm = try SoftwareTPM()
        defer { tpm.stop() }
        let sandbox = try Sandbox(configuration: tpm.requiredConfiguration)
        try sandbox.setPIN("daemon", pin: "6193")
        try sandbox.setPIN("bin", pin: "4816")
        let secret = try harden(sandbox)
        let stage = try UnprivilegedStage(sandbox: sandbox)
        try stage.probeService()

        var current = "6193"
        let pins = ["6028", "7149", "3962", "9417", "2741", "8305", "5793", "4178"]
        XCTAssertEqual(pins.count, PINAdministration.unprunedCounterLimit)
        for next in pins {
            let changed = try stage.cli(as: 1, ["change", "--stdin"], input: "\(current)\n\(next)\n")
            XCTAssertEqual(changed.status, 0, "daemon's change to \(next): " + changed.errorOutput)
            current = next
        }
        XCTAssertEqual(try unaccounted(sandbox, tpm), [], "every index is named by a record, the decoys or the ledger")

        let other = try stage.cli(as: 2, ["change", "--stdin"], input: "4816\n7305\n")
        XCTAssertEqual(other.status, 0, "bin is not refused for daemon's counters: " + other.errorOutput)
        XCTAssertEqual(try stage.pam(as: 2, user: "bin", responses: ["7305"]).code, PAMCode.success)

        let refused = try stage.cli(as: 1, ["change", "--stdin"], input: "\(current)\n5913\n")
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.errorOutput.contains("this user's replaced PINs"), refused.errorOutput)
        XCTAssertTrue(refused.errorOutput.contains("secureroom tpm prune"), refused.errorOutput)

        let prune = try sandbox.cli(["tpm", "prune"], input: secret + "\n")
        XCTAssertEqual(prune.status, 0, prune.errorOutput)
        let after = try stage.cli(as: 1, ["change", "--stdin"], input: "\(current)\n5913\n")
        XCTAssertEqual(after.status, 0, "after the prune: " + after.errorOutput)
        XCTAssertEqual(try unaccounted(sandbox, tpm), [])
    }

    /// A PIN not yet on its own counter is bound at its next right PIN (a re-derivation).
    /// Two right PINs at once bind it once: the second skips, and no index is left that
    /// nothing names. An administrator's `set` over a bound PIN on a hardened chip leaves
    /// the old index in the ledger (charged to nobody) and says how to free it.
    func testTwoRightPINsAtOnceLeaveNoIndexUnaccounted() throws {
        setenv("TSS2_LOG", "all+none", 1)
        let tpm = try SoftwareTPM()
        defer { tpm.stop() }
        let sandbox = try Sandbox(configuration: tpm.requiredConfiguration)
        try sandbox.setPIN("bin", pin: "4816")  // the decoys' index, and a bound PIN
        _ = try harden(sandbox)
        try sandbox.probeService()
        let pin = "6193"
        for round in 0..<3 {
            try sandbox.write(sandbox.config, Sandbox.fastKDF + "tpm = off\n", mode: 0o600)
            let set = try sandbox.cli(["set", "daemon", "--stdin", "--allow-weak"], input: pin + "\n")
            XCTAssertEqual(set.status, 0, set.errorOutput)
            if round > 0 {
                XCTAssertTrue(set.errorOutput.contains("secureroom tpm prune"), "round \(round): " + set.errorOutput)
            }
            try sandbox.write(sandbox.config, tpm.requiredConfiguration, mode: 0o600)
            XCTAssertEqual(try sandbox.status("daemon")["tpm"] as? String, "none", "round \(round)")

            let codes = try concurrently(2) { _ in try sandbox.pam(user: "daemon", responses: [pin]).code }
            XCTAssertEqual(codes, [PAMCode.success, PAMCode.success], "round \(round)")
            XCTAssertEqual(try sandbox.status("daemon")["tpm"] as? String, "bound", "round \(round)")
            XCTAssertEqual(try unaccounted(sandbox, tpm), [], "round \(round)")
        }
    }

    /// Hardens the sandbox's chip; returns the recovery secret's `hex:` line.
    private func harden(_ sandbox: Sandbox) throws -> String {
        let harden = try sandbox.cli(["tpm", "harden"])
        XCTAssertEqual(harden.status, 0, harden.errorOutput)
        return try XCTUnwrap(harden.output.split(separator: "\n").first { $0.hasPrefix("hex:") }).description
    }

    /// `count` calls of `body` started together, their results in order.
    private func concurrently<T>(_ count: Int, _ body: @escaping @Sendable (Int) throws -> T) throws -> [T] {
        let results = LockedResults<T>(count: count)
        DispatchQueue.concurrentPerform(iterations: count) { index in results.set(index, Result { try body(index) }) }
        return try results.values()
    }

    /// SecureRoom's indices on the chip (0x01A00000–0x01A0FFFF) that no credential, the
    /// decoys' record or an entry of the chip's ledger (`users/.tpm-HANDLE`) names.
    private func unaccounted(_ sandbox: Sandbox, _ tpm: SoftwareTPM) throws -> [String] {
        let users = sandbox.state + "/users"
        var named: Set<UInt32> = []
        for file in try FileManager.default.contentsOfDirectory(atPath: users) {
            if file.hasSuffix(".credential") || file == ".decoy.tpm" {
                let text = try String(contentsOfFile: users + "/" + file, encoding: .utf8)
                for line in text.split(separator: "\n") where line.hasPrefix("tpm-index: ") {
                    if let handle = UInt32(line.dropFirst("tpm-index: ".count), radix: 16) { named.insert(handle) }
                }
            } else if file.hasPrefix(".tpm-"), let handle = UInt32(file.dropFirst(".tpm-".count), radix: 16) {
                named.insert(handle)
            }
        }
        return try tpm.nvIndices().filter { index in
            guard let handle = UInt32(index.dropFirst(2), radix: 16) else { return true }
            return PinIndexBinding.handles.contains(handle) && !named.contains(handle)
        }
    }
}

/// Results written by concurrent threads, one slot each.
private final class LockedResults<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Result<T, any Error>?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ result: Result<T, any Error>) { lock.withLock { slots[index] = result } }

    func values() throws -> [T] {
        try lock.withLock { try slots.map { try XCTUnwrap($0).get() } }
    }
}
