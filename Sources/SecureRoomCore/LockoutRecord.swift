/// One user's failure tally (docs/FORMAT.md §4).
///
/// An attempt is counted *before* argon2 runs, as a pending attempt, and the user's lock
/// is released while argon2 runs; when the outcome is known the attempt is resolved under
/// the lock again: a failure (`failures` + 1), a success (everything cleared), or a
/// repeat of a wrong PIN already counted (dropped). A process killed or stopped in
/// between leaves its pending attempt counted, so there is never a free guess, and no
/// process can hold the lock for longer than a few file writes.
/// `seenGuesses` holds tags of the wrong PINs in the current run (derived from their
/// argon2 output, so no cheaper to search than the credential itself).
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

    /// Consecutive failures since the last success or reset, resolved ones only.
    public var failures: Int = 0
    /// When the latest resolved failure was counted.
    public var lastFailure: Instant?
    /// When the latest successful authentication happened.
    public var lastSuccess: Int64?
    /// Attempts counted whose outcome is unknown: in flight, or their process died.
    public var pending: [PendingAttempt] = []
    /// Tags of wrong PINs already counted in this run (see `PINKeys.guessTag`).
    public var seenGuesses: [[UInt8]] = []

    /// An empty tally.
    public init() {}

    /// Failures plus pending attempts: what the lockout policy counts.
    public var counted: Int { failures + pending.count }

    /// The instants from which delays run: the latest failure and every pending attempt.
    public var attemptInstants: [Instant] { (lastFailure.map { [$0] } ?? []) + pending.map(\.counted) }

    /// Parses a record file; throws `corruptRecord` for anything not exactly per FORMAT.md.
    public init(parsing bytes: [UInt8], path: String) throws {
        let version1 = bytes.starts(with: Array((Self.headerVersion1 + "\n").utf8))
        let text = try RecordText(parsing: bytes, header: version1 ? Self.headerVersion1 : Self.header,
                                  keys: ["failures", "last-failure", "last-success", "pending", "seen"],
                                  repeatable: ["pending", "seen"], path: path)
        failures = try text.number("failures", in: 0...1_000_000)
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
        guard !version1 || attempts.isEmpty else {
            throw SecureRoomError.corruptRecord(path: path, reason: "pending entries in a version 1 record")
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
        seenGuesses = version1 ? [] : try tags.map { tag in
            guard let bytes = Hex.decode(tag, count: PINKeys.guessTagLength) else {
                throw SecureRoomError.corruptRecord(path: path, reason: "malformed seen entry")
            }
            return bytes
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
        for attempt in pending.suffix(Self.maximumSeenGuesses) {
            pairs.append(("pending", Hex.encode(attempt.id) + " " + Self.render(attempt.counted)))
        }
        for tag in seenGuesses.suffix(Self.maximumSeenGuesses) { pairs.append(("seen", Hex.encode(tag))) }
        return RecordText.render(header: Self.header, pairs)
    }
}
