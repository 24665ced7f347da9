import Glibc

/// How many PAM sessions each user has open, so that only the last one to close locks the
/// vault (pam_fscrypt's rule). Kept under `sessions=` (default /run/secureroom, root 0700):
/// it is forgotten at reboot, exactly when the keyring is.
///
///     /run/secureroom/NAME.sessions   0600   "N\n"
///     /run/secureroom/NAME.lock       0600   flock'd while the count changes
public struct SessionCounter {
    /// The counting directory.
    public let path: String
    private let owner: uid_t

    /// Counts under `path`; records must belong to `owner` (root).
    public init(path: String, owner: uid_t = 0) {
        self.path = path
        self.owner = owner
    }

    /// Adds one open session for `user`; returns the new count.
    @discardableResult
    public func open(for user: UserName) throws -> Int { try adjust(user, by: 1) }

    /// Ends one session for `user`; returns how many are still open (0: the last closed).
    /// An unknown count (after a reboot, or a session opened before SecureRoom) is 0.
    @discardableResult
    public func close(for user: UserName) throws -> Int { try adjust(user, by: -1) }

    private func adjust(_ user: UserName, by change: Int) throws -> Int {
        let directory = try ProtectedDirectory.open(path, create: true, owner: owner)
        let lock = try directory.lock("\(user.rawValue).lock")
        defer { withExtendedLifetime(lock) {} }
        let name = "\(user.rawValue).sessions"
        var count = 0
        if let bytes = try directory.read(name, limit: 32) {
            guard bytes.last == 0x0a, let value = RecordText.decimal(Substring(decoding: bytes.dropLast(), as: UTF8.self), as: Int.self)
            else { throw SecureRoomError.corruptRecord(path: directory.path + "/" + name, reason: "not a session count") }
            count = value
        }
        count = max(0, count + change)
        if count == 0 {
            try directory.remove(name)
        } else {
            try directory.writeAtomically(name, contents: Array("\(count)\n".utf8))
        }
        return count
    }
}
