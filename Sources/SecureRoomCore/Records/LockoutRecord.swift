// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// One user's failure tally (docs/FORMAT.md §4): the failures of the current run, the
/// attempts counted but not yet resolved (`pending`), the tags of the run's wrong guesses
/// (`seenGuesses`, no cheaper to search than the credential), the failures a success did
/// not forgive (`unforgiven`, for a year), and the chip's share (`chipFailedAt`). Data and
/// its text form only: every change to it is a rule of `LockoutPolicy`, run under the
/// user's lock by `LockoutProtocol`.
public struct LockoutRecord: Equatable, Sendable {
    /// The record's first line; version 1 records (HMAC tags under the pepper) are still
    /// read, without their tags.
    static let header = "SECUREROOM-LOCKOUT/2"
    static let headerVersion1 = "SECUREROOM-LOCKOUT/1"
    /// Largest record file accepted.
    static let maximumSize = 16384
    /// Most tags, and most pending attempts, kept (no sensible `deny` exceeds it).
    public static let maximumSeenGuesses = 100

    /// An attempt counted whose outcome is not recorded yet.
    public struct PendingAttempt: Equatable, Sendable {
        /// A random identifier, so its own check can find it again (8 bytes).
        public var id: [UInt8]
        /// When it was counted.
        public var counted: Instant

        /// Length of `id`.
        public static let idLength = 8
    }

    /// When each failure of the current run was counted (wall clock), oldest first: the
    /// consecutive failures since the last success or reset, resolved ones only.
    public var failedAt: [Int64] = []
    /// How many failures the current run has (the record's `failures` line).
    public var failures: Int { failedAt.count }
    /// Failures of earlier runs that their success did not forgive (wall clock).
    public var unforgiven: [Int64] = []
    /// When the latest resolved failure was counted.
    public var lastFailure: Instant?
    /// When the latest successful authentication happened.
    public var lastSuccess: Int64?
    /// Attempts counted whose outcome is unknown: in flight, or their process died.
    public var pending: [PendingAttempt] = []
    /// Tags of wrong PINs already counted in this run (see `PINKeys.guessTag`).
    public var seenGuesses: [[UInt8]] = []
    /// When a wrong PIN of this account was put to the TPM (a failed unseal, or a decoy's
    /// stand-in), oldest first. Neither a success, nor a password, nor a reset forgives
    /// them: only time, as the chip's own counter (`TPMShare`).
    public var chipFailedAt: [Int64] = []

    /// An empty tally.
    public init() {}

    /// Failures plus pending attempts: the current run, which the delays follow.
    public var counted: Int { failures + pending.count }

    /// The instants from which delays run: the latest failure and every pending attempt.
    public var attemptInstants: [Instant] { (lastFailure.map { [$0] } ?? []) + pending.map(\.counted) }

    /// Parses a record file; throws `corruptRecord` for anything not exactly per FORMAT.md.
    public init(parsing bytes: [UInt8], path: String) throws {
        let version1 = bytes.starts(with: Array((Self.headerVersion1 + "\n").utf8))
        let text = try RecordText(
            parsing: bytes, header: version1 ? Self.headerVersion1 : Self.header,
            keys: [
                "failures", "last-failure", "last-success", "pending", "seen", "failed-at", "unforgiven",
                "chip-failed-at",
            ],
            repeatable: ["pending", "seen", "failed-at", "unforgiven", "chip-failed-at"], path: path)
        let failures: Int = try text.number("failures", in: 0...1_000_000)
        if let value = text.fields["last-failure"]?.first {
            lastFailure = try Self.instant(value, path: path, field: "last-failure")
        }
        if let value = text.fields["last-success"]?.first {
            guard let wall = RecordText.decimal(value, as: Int64.self) else {
                throw SecureRoomError.corruptRecord(path: path, reason: "malformed last-success")
            }
            lastSuccess = wall
        }
        let attempts = text.fields["pending"] ?? []
        let tags = text.fields["seen"] ?? []
        guard tags.count <= Self.maximumSeenGuesses, attempts.count <= Self.maximumSeenGuesses else {
            throw SecureRoomError.corruptRecord(path: path, reason: "too many seen or pending entries")
        }
        guard
            !version1
                || (attempts.isEmpty && text.fields["failed-at"] == nil && text.fields["unforgiven"] == nil
                    && text.fields["chip-failed-at"] == nil)
        else {
            throw SecureRoomError.corruptRecord(path: path, reason: "version 2 entries in a version 1 record")
        }
        func times(_ key: String) throws -> [Int64] {
            let values = text.fields[key] ?? []
            guard values.count <= Self.maximumSeenGuesses else {
                throw SecureRoomError.corruptRecord(path: path, reason: "too many \(key) entries")
            }
            return try values.map { value in
                guard let wall = RecordText.decimal(value, as: Int64.self) else {
                    throw SecureRoomError.corruptRecord(path: path, reason: "malformed \(key)")
                }
                return wall
            }
        }
        unforgiven = try times("unforgiven")
        chipFailedAt = try times("chip-failed-at")
        // Version 1 kept no times per failure: each counts as made at the last failure.
        failedAt =
            version1
            ? Array(repeating: lastFailure?.wallSeconds ?? 0, count: min(failures, Self.maximumSeenGuesses))
            : try times("failed-at")
        guard version1 || failedAt.count == failures else {
            throw SecureRoomError.corruptRecord(path: path, reason: "failed-at entries do not match failures")
        }
        pending = try attempts.map { line in
            let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let id = Hex.decode(parts[0], count: PendingAttempt.idLength) else {
                throw SecureRoomError.corruptRecord(path: path, reason: "malformed pending entry")
            }
            return PendingAttempt(id: id, counted: try Self.instant(parts[1], path: path, field: "pending"))
        }
        // Version 1 tags were HMACs under the pepper, cheaper to search than the record:
        // they are dropped on reading (a repeat of those guesses counts once more).
        seenGuesses =
            version1
            ? []
            : try tags.map { tag in
                guard let bytes = Hex.decode(tag, count: PINKeys.guessTagLength) else {
                    throw SecureRoomError.corruptRecord(path: path, reason: "malformed seen entry")
                }
                return bytes
            }
        // A writer never repeats an id or a tag (FORMAT.md §4): a record that does is not its.
        guard Set(pending.map(\.id)).count == pending.count, Set(seenGuesses).count == seenGuesses.count else {
            throw SecureRoomError.corruptRecord(path: path, reason: "a pending id or seen tag listed twice")
        }
        if failures > 0 && lastFailure == nil {
            throw SecureRoomError.corruptRecord(path: path, reason: "failures without last-failure")
        }
    }

    /// `UNIX-SECONDS BOOT-ID BOOT-NANOSECONDS`.
    private static func instant(_ value: Substring, path: String, field: String) throws -> Instant {
        let parts = value.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let wall = RecordText.decimal(parts[0], as: Int64.self),
            parts[1] == "-" || Hex.decode(parts[1], count: 16) != nil,
            let boot = RecordText.decimal(parts[2], as: UInt64.self)
        else { throw SecureRoomError.corruptRecord(path: path, reason: "malformed \(field)") }
        return Instant(wallSeconds: wall, bootID: parts[1] == "-" ? "" : String(parts[1]), bootNanoseconds: boot)
    }

    private static func render(_ instant: Instant) -> String {
        "\(instant.wallSeconds) \(instant.bootID.isEmpty ? "-" : instant.bootID) \(instant.bootNanoseconds)"
    }

    /// The record file's bytes (always the current version).
    public func serialized() -> [UInt8] {
        var pairs: [(String, String)] = [("failures", String(failures))]
        if let last = lastFailure { pairs.append(("last-failure", Self.render(last))) }
        if let success = lastSuccess { pairs.append(("last-success", String(success))) }
        for wall in failedAt.suffix(Self.maximumSeenGuesses) { pairs.append(("failed-at", String(wall))) }
        for wall in unforgiven.suffix(Self.maximumSeenGuesses) { pairs.append(("unforgiven", String(wall))) }
        for wall in chipFailedAt.suffix(Self.maximumSeenGuesses) { pairs.append(("chip-failed-at", String(wall))) }
        for attempt in pending.suffix(Self.maximumSeenGuesses) {
            pairs.append(("pending", Hex.encode(attempt.id) + " " + Self.render(attempt.counted)))
        }
        for tag in seenGuesses.suffix(Self.maximumSeenGuesses) { pairs.append(("seen", Hex.encode(tag))) }
        return RecordText.render(header: Self.header, pairs)
    }
}
