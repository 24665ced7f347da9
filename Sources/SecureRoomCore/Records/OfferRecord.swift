// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// A user's answer to the enrolment offer at login (docs/FORMAT.md §10): when they last
/// said no, so that `enrol=offer` does not ask again before `enrol_snooze` has passed.
/// Removed when the user gets a PIN.
public struct OfferRecord: Equatable, Sendable {
    /// The record's first line.
    static let header = "SECUREROOM-OFFER/1"
    /// Largest record file accepted.
    static let maximumSize = 512

    /// The user this record belongs to.
    public var user: UserName
    /// When the user declined (Unix seconds).
    public var declined: Int64

    /// Creates a record from its fields.
    public init(user: UserName, declined: Int64) {
        self.user = user
        self.declined = declined
    }

    /// Whether the user may be asked again at `now` after a snooze of `snooze` seconds.
    /// A time in the future (a clock set back) counts as now, so the snooze never grows.
    public func allowsOffer(at now: Int64, snooze: Int64) -> Bool {
        let since = now - min(declined, now)
        return since >= snooze
    }

    /// Parses a record file; throws `corruptRecord` for anything not exactly per FORMAT.md.
    public init(parsing bytes: [UInt8], path: String) throws {
        let text = try RecordText(parsing: bytes, header: Self.header, keys: ["user", "declined"], path: path)
        do {
            user = try UserName(String(try text.required("user")))
        } catch SecureRoomError.invalidUserName {
            throw SecureRoomError.corruptRecord(path: path, reason: "invalid user")
        }
        declined = try text.number("declined", in: 0...Int64.max)
    }

    /// The record file's bytes.
    public func serialized() -> [UInt8] {
        RecordText.render(header: Self.header, [("user", user.rawValue), ("declined", String(declined))])
    }
}
