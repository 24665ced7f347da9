// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Fuzzes the lockout record parser, `LockoutRecord(parsing:path:)` (FORMAT.md §4), and
/// what the module does next with a parsed tally: `LockoutPolicy.status(of:at:)`.
///
/// Properties of a record that parses:
/// - failures in 0...1,000,000, a last-failure when failures > 0, at most 100 seen tags of
///   the tag length and 100 pending attempts of the id length, boot ids that are empty or
///   32 lowercase hex digits;
/// - `serialized()` has exactly the input's lines (a version 1 input: its lines but the
///   header and its seen tags, which are dropped, a count above 100 kept as 100, and the
///   failed-at lines it gains) and parses back to an equal record;
/// - evaluating the default policy (and a one-guess policy) at instants before, at and
///   long after the last failure, in the same boot and another, never traps, and the
///   status reports the record's count (the run, pending attempts, and the unforgiven
///   failures younger than a year at that instant).
import FuzzSupport

@testable import SecureRoomCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLockoutRecord(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let record = try? LockoutRecord(parsing: bytes, path: "fuzz") else { return 0 }
    require((0...1_000_000).contains(record.failures), "failures \(record.failures)")
    require(record.failures == 0 || record.lastFailure != nil, "failures without last-failure")
    require(record.seenGuesses.count <= LockoutRecord.maximumSeenGuesses, "too many seen tags")
    require(record.seenGuesses.allSatisfy { $0.count == PINKeys.guessTagLength }, "seen tag length")
    require(record.pending.count <= LockoutRecord.maximumSeenGuesses, "too many pending attempts")
    require(record.pending.allSatisfy { $0.id.count == LockoutRecord.PendingAttempt.idLength }, "pending id length")
    for instant in record.attemptInstants {
        require(instant.bootID.isEmpty || Hex.decode(Substring(instant.bootID), count: 16) != nil, "boot id")
    }
    let serialized = record.serialized()
    let version1 = bytes.starts(with: Array("SECUREROOM-LOCKOUT/1\n".utf8))
    // A version 1 count above what version 2 keeps (one failed-at line each, at most 100)
    // is kept as 100: more than any deny= allows, so the PIN stays disabled.
    let failuresLine = Array("failures: ".utf8)
    let expected =
        version1
        ? sortedLines(bytes).filter {
            !$0.starts(with: Array("seen: ".utf8)) && !$0.starts(with: Array("SECUREROOM-LOCKOUT/".utf8))
        }
        .map { line in
            guard line.starts(with: failuresLine),
                let count = Int(String(decoding: line.dropFirst(failuresLine.count), as: UTF8.self)),
                count > LockoutRecord.maximumSeenGuesses
            else { return line }
            return failuresLine + Array(String(LockoutRecord.maximumSeenGuesses).utf8)
        }
            + [Array("SECUREROOM-LOCKOUT/2".utf8)]
        : sortedLines(bytes)
    let written =
        version1
        ? sortedLines(serialized).filter { !$0.starts(with: Array("failed-at: ".utf8)) } : sortedLines(serialized)
    require(
        written.sorted(by: { $0.lexicographicallyPrecedes($1) })
            == expected.sorted(by: { $0.lexicographicallyPrecedes($1) }),
        "serialized lines differ from the input's")
    require(record.failedAt.count == min(record.failures, LockoutRecord.maximumSeenGuesses), "failed-at entries")
    require(
        (try? LockoutRecord(parsing: serialized, path: "fuzz")) == record,
        "serialized record does not parse back to itself")

    let last = record.lastFailure ?? Instant(wallSeconds: 0, bootID: "", bootNanoseconds: 0)
    let instants = [
        Instant(wallSeconds: 0, bootID: "", bootNanoseconds: 0),
        last,
        Instant(wallSeconds: Int64.max, bootID: last.bootID, bootNanoseconds: UInt64.max),
        Instant(wallSeconds: Int64.max, bootID: "0123456789abcdef0123456789abcdef", bootNanoseconds: 0),
        Instant(wallSeconds: 1_795_000_000, bootID: last.bootID, bootNanoseconds: 0),
    ]
    let policies = [LockoutPolicy.defaults, try! LockoutPolicy(deny: 1, schedule: [])]
    for policy in policies {
        for now in instants {
            let status = policy.status(of: record, at: now)
            let counted = record.counted + policy.unforgiven(in: record, at: now.wallSeconds)
            require(status.failures == counted, "status reports \(status.failures) failures, the record \(counted)")
            require(!(counted >= policy.deny && status.allowsAttempt), "disabled tally allows an attempt")
        }
    }
    return 0
}
