// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomCore
import XCTest

/// Secrets stay locked in RAM while they live: mlock(2) and munlock(2) work on whole
/// pages, so freeing one secret must never unlock a page another live secret is on.
final class SecretBytesTests: XCTestCase {
    func testFreeingASecretLeavesEveryOtherSecretLocked() throws {
        var secrets = (0..<64).map { _ in SecretBytes(count: 32) }
        for secret in secrets {
            XCTAssertTrue(try locked(secret), "a new secret is locked")
        }
        // Free every other one: their neighbours, on the same pages or not, stay locked.
        secrets = secrets.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        for (index, secret) in secrets.enumerated() {
            XCTAssertTrue(try locked(secret), "secret \(index * 2) was unlocked when a neighbour was freed")
        }
    }

    /// Whether the secret's bytes lie in a locked mapping (`lo` in its VmFlags).
    private func locked(_ secret: SecretBytes) throws -> Bool {
        let address = secret.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
        // Read whole through a handle: /proc files report a size of 0, which
        // String(contentsOfFile:) takes at its word.
        let file = try XCTUnwrap(FileHandle(forReadingAtPath: "/proc/self/smaps"))
        defer { try? file.close() }
        let maps = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        var inside = false
        for line in maps.split(separator: "\n") {
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = words.first, let dash = range.firstIndex(of: "-"),
                let start = UInt(range[..<dash], radix: 16),
                let end = UInt(range[range.index(after: dash)...], radix: 16)
            {
                inside = start <= address && address < end
            } else if inside, words.first == "VmFlags:" {
                return words.contains("lo")
            }
        }
        return false
    }
}
