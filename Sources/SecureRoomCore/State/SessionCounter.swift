// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc

/// The PAM sessions each user has open, each held by a live process, so that the last one
/// to end locks the vault (pam_fscrypt's rule), including a session whose process died
/// without `close_session` (a `su` killed with SIGKILL): a session counts while its
/// process runs, not until someone calls close (docs/FORMAT.md §8). Kept under
/// `sessions=` (default /run/secureroom): it is forgotten at reboot, exactly when the
/// keyring is.
///
///     /run/secureroom/              root 0755
///       NAME.sessions   0644   SECUREROOM-SESSIONS/1, one `session: PID START` per session
///       NAME.lock       0600   flock'd while the list changes
///
/// Readable by everyone (it holds pids, as /proc does) so that the user's own vault tool
/// can tell that no session is left; written by root only.
public struct SessionCounter {
    /// The file's first line.
    static let header = "SECUREROOM-SESSIONS/1"
    /// Largest file accepted (far more sessions than one user opens).
    static let maximumSize = 16384

    /// The counting directory.
    public let path: String
    private let owner: uid_t

    /// Counts under `path`; records must belong to `owner` (root).
    public init(path: String, owner: uid_t = 0) {
        self.path = path
        self.owner = owner
    }

    /// Adds the session `process` holds for `user`; returns how many are alive.
    @discardableResult
    public func open(for user: UserName, by process: ProcessIdentity) throws -> Int {
        try update(user, create: true) { $0.append(process) }.live
    }

    /// Ends the session `process` holds for `user`, if it holds one; returns how many are
    /// alive (0: the last one ended).
    @discardableResult
    public func close(for user: UserName, by process: ProcessIdentity) throws -> Int {
        try update(user, create: true) { sessions in sessions.removeAll { $0 == process } }.live
    }

    /// Forgets the sessions whose process is gone: how many are alive, and how many were
    /// forgotten. Where nothing was ever counted (no directory, no list) it reads one
    /// directory and returns (0, 0): it runs at every PIN check, and must cost next to
    /// nothing for users who have no dead session.
    public func prune(for user: UserName) throws -> (live: Int, forgotten: Int) {
        do {
            return try update(user, create: false) { _ in }
        } catch SecureRoomError.stateMissing {
            return (0, 0)
        }
    }

    /// How many of `user`'s sessions are alive, read without changing anything (the user's
    /// own tools, which cannot write here); nil if the list cannot be read or trusted.
    public func liveSessions(of user: UserName) -> Int? {
        guard let directory = try? ProtectedDirectory.open(path, owner: owner) else { return nil }
        guard let bytes = try? directory.read(fileName(user), limit: Self.maximumSize, othersMayRead: true) else {
            return nil
        }
        return Self.parse(bytes).filter(\.isAlive).count
    }

    /// Whether `user` has a live session listed (`VaultKeyring.storeFollowingSessions`).
    public func hasLiveSessions(of user: UserName) -> Bool { (liveSessions(of: user) ?? 0) > 0 }

    private func fileName(_ user: UserName) -> String { "\(user.rawValue).sessions" }

    /// Changes the list under the user's lock: dead sessions are dropped first, then
    /// `change` runs; the list is written (or removed when empty). Returns its size and how
    /// many dead sessions were dropped. Without `create`, a missing directory throws
    /// `stateMissing` and a missing list changes nothing.
    private func update(
        _ user: UserName, create: Bool,
        _ change: (inout [ProcessIdentity]) -> Void
    ) throws -> (live: Int, forgotten: Int) {
        let directory = try ProtectedDirectory.open(path, create: create, owner: owner)
        let name = fileName(user)
        if !create, try directory.read(name, limit: Self.maximumSize, othersMayRead: true) == nil { return (0, 0) }
        try directory.allowReading()
        let lock = try directory.lock("\(user.rawValue).lock")
        defer { withExtendedLifetime(lock) {} }
        let before = try directory.read(name, limit: Self.maximumSize, othersMayRead: true).map(Self.parse) ?? []
        var sessions = before.filter(\.isAlive)
        let forgotten = before.count - sessions.count
        change(&sessions)
        if sessions.isEmpty {
            try directory.remove(name)
        } else if sessions != before {
            let lines = sessions.map { ("session", "\($0.pid) \($0.start)") }
            try directory.writeAtomically(name, contents: RecordText.render(header: Self.header, lines), mode: 0o644)
        }
        return (sessions.count, forgotten)
    }

    /// The sessions a file lists. A file of another form (the count an earlier version
    /// kept, or damage) lists none: it only ever decides when a vault locks early.
    static func parse(_ bytes: [UInt8]) -> [ProcessIdentity] {
        guard
            let text = try? RecordText(
                parsing: bytes, header: header, keys: ["session"], repeatable: ["session"],
                path: "sessions")
        else { return [] }
        return (text.fields["session"] ?? []).compactMap { line in
            let parts = line.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 2, let pid = RecordText.decimal(parts[0], as: Int32.self),
                let start = RecordText.decimal(parts[1], as: UInt64.self)
            else { return nil }
            return ProcessIdentity(pid: pid, start: start)
        }
    }
}
