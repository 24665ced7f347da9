/// One user's failure tally (docs/FORMAT.md §4).
///
/// `failures` counts consecutive failed attempts since the last success or reset.
/// An attempt is counted *before* the PIN is checked, so a process killed during the
/// check leaves the failure recorded. `seenGuesses` holds keyed tags of the wrong PINs
/// in the current run, so repeating one of them costs no further attempt.
public struct LockoutRecord: Equatable, Sendable {
    /// The record's first line.
    static let header = "SECUREROOM-LOCKOUT/1"
    /// Largest record file accepted.
    static let maximumSize = 8192
    /// Most tags kept (no sensible `deny` exceeds it).
    public static let maximumSeenGuesses = 100

    /// Consecutive failures since the last success or reset.
    public var failures: Int = 0
    /// When the latest failure was counted.
    public var lastFailure: Instant?
    /// When the latest successful authentication happened.
    public var lastSuccess: Int64?
    /// Tags of wrong PINs already counted in this run (see `PINKeys.guessTag`).
    public var seenGuesses: [[UInt8]] = []

    /// An empty tally.
    public init() {}

    /// Parses a record file; throws `corruptRecord` for anything not exactly per FORMAT.md.
    public init(parsing bytes: [UInt8], path: String) throws {
        let text = try RecordText(parsing: bytes, header: Self.header,
                                  keys: ["failures", "last-failure", "last-success", "seen"],
                                  repeatable: ["seen"], path: path)
        failures = try text.number("failures", in: 0...1_000_000)
        if let value = text.fields["last-failure"]?.first {
            let parts = value.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 3,
                  let wall = RecordText.decimal(parts[0], as: Int64.self),
                  parts[1] == "-" || Hex.decode(parts[1], count: 16) != nil,
                  let boot = RecordText.decimal(parts[2], as: UInt64.self)
            else { throw SecureRoomError.corruptRecord(path: path, reason: "malformed last-failure") }
            lastFailure = Instant(wallSeconds: wall, bootID: parts[1] == "-" ? "" : String(parts[1]),
                                  bootNanoseconds: boot)
        }
        if let value = text.fields["last-success"]?.first {
            guard let wall = RecordText.decimal(value, as: Int64.self) else {
                throw SecureRoomError.corruptRecord(path: path, reason: "malformed last-success")
            }
            lastSuccess = wall
        }
        let tags = text.fields["seen"] ?? []
        guard tags.count <= Self.maximumSeenGuesses else {
            throw SecureRoomError.corruptRecord(path: path, reason: "too many seen entries")
        }
        seenGuesses = try tags.map { tag in
            guard let bytes = Hex.decode(tag, count: PINKeys.guessTagLength) else {
                throw SecureRoomError.corruptRecord(path: path, reason: "malformed seen entry")
            }
            return bytes
        }
        if failures > 0 && lastFailure == nil {
            throw SecureRoomError.corruptRecord(path: path, reason: "failures without last-failure")
        }
    }

    /// The record file's bytes.
    public func serialized() -> [UInt8] {
        var pairs: [(String, String)] = [("failures", String(failures))]
        if let last = lastFailure {
            pairs.append(("last-failure",
                          "\(last.wallSeconds) \(last.bootID.isEmpty ? "-" : last.bootID) \(last.bootNanoseconds)"))
        }
        if let success = lastSuccess { pairs.append(("last-success", String(success))) }
        for tag in seenGuesses.suffix(Self.maximumSeenGuesses) { pairs.append(("seen", Hex.encode(tag))) }
        return RecordText.render(header: Self.header, pairs)
    }
}
