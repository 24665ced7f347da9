// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// When each user's password was last accepted in this boot, for `password_first=`
/// (docs/SECURITY.md §1.3): the `authsucc` line records it after a primary authentication
/// that was not the PIN, under `sessions=` (default /run/secureroom, a tmpfs that a reboot
/// empties), root's and written by root only (docs/FORMAT.md §8).
///
///     /run/secureroom/
///       NAME.password   0644   SECUREROOM-PASSWORD/1, `accepted: UNIX-SECONDS BOOT-ID BOOT-NANOSECONDS`
///
/// Readable by everyone (it tells no more than `last` does), so that a PAM host without
/// root can apply the rule before it asks for anything.
public struct PasswordProof {
    /// The file's first line.
    static let header = "SECUREROOM-PASSWORD/1"
    /// Largest file accepted.
    static let maximumSize = 512

    /// The directory (`sessions=`).
    public let path: String

    /// Proofs under `path`.
    public init(path: String) { self.path = path }

    private func fileName(_ user: UserName) -> String { "\(user.rawValue).password" }

    /// Records that `user`'s password was accepted at `now` (root only).
    public func record(for user: UserName, at now: Instant) throws {
        let directory = try ProtectedDirectory.open(path, create: true)
        try directory.allowReading()
        let accepted = "\(now.wallSeconds) \(now.bootID.isEmpty ? "-" : now.bootID) \(now.bootNanoseconds)"
        try directory.writeAtomically(
            fileName(user), contents: RecordText.render(header: Self.header, [("accepted", accepted)]), mode: 0o644)
    }

    /// When `user`'s password was last accepted in the boot of `now`; nil if not in this
    /// boot (a file of an earlier boot, with an unknown boot id, unreadable, or none).
    public func lastAccepted(by user: UserName, now: Instant) -> Instant? {
        guard !now.bootID.isEmpty, let directory = try? ProtectedDirectory.open(path),
            let bytes = try? directory.read(fileName(user), limit: Self.maximumSize, othersMayRead: true),
            let text = try? RecordText(parsing: bytes, header: Self.header, keys: ["accepted"], path: fileName(user)),
            let parts = text.fields["accepted"]?.first?.split(separator: " ", omittingEmptySubsequences: false),
            parts.count == 3, let wall = RecordText.decimal(parts[0], as: Int64.self),
            let boot = RecordText.decimal(parts[2], as: UInt64.self), parts[1] == Substring(now.bootID)
        else { return nil }
        return Instant(wallSeconds: wall, bootID: String(parts[1]), bootNanoseconds: boot)
    }

    /// Whether `rule` lets `user` use the PIN at `now`.
    public func allowsPIN(of user: UserName, under rule: Configuration.PasswordFirst, at now: Instant) -> Bool {
        switch rule {
        case .off: return true
        case .boot: return lastAccepted(by: user, now: now) != nil
        case .within(let seconds):
            guard let accepted = lastAccepted(by: user, now: now) else { return false }
            return now.seconds(since: accepted) < seconds
        }
    }

    /// Throws `passwordFirst` unless `rule` lets `user` use the PIN at `now`.
    public func requirePassword(of user: UserName, under rule: Configuration.PasswordFirst, at now: Instant) throws {
        guard allowsPIN(of: user, under: rule, at: now) else {
            throw SecureRoomError.passwordFirst(user: user.rawValue)
        }
    }
}
