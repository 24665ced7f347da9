// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CKeyutils
import CSecureRoomSystem
import Glibc

/// An unlocked vault key in the kernel's key retention service (docs/FORMAT.md §8):
/// a `user` key named `secureroom:vault:NAME` in the user's own user keyring (@u), owned
/// by the user, readable by the user only, with a timeout (`vault_timeout=`). The key is
/// gone when it times out, when `remove` invalidates it, or at reboot.
///
/// Payload (48 bytes): "SRVK" 01, a flags byte (1: put there by a login session, see
/// `load(checkingSessionsIn:)`), 00 00, the expiry as Unix seconds (big-endian u64), then
/// the 32-byte data key. The expiry only answers "how long is left"; the kernel's timeout,
/// and the end of the last session, are what lock.
public struct VaultKeyring {
    /// The vault's owner.
    public let user: UserName
    /// The owner's uid and primary gid.
    public let uid: uid_t
    /// The owner's primary gid.
    public let gid: gid_t

    private static let magic: [UInt8] = [0x53, 0x52, 0x56, 0x4b, 1, 0, 0, 0]
    /// Where the flags byte is in the payload, and the flag of a key a session put there.
    private static let flagsOffset = 5
    private static let sessionBoundFlag: UInt8 = 1
    private static let payloadLength = magic.count + 8 + VaultKey.length
    /// possessor: everything; owner: view, read, write, search, setattr; nobody else.
    private static let permissions: key_perm_t = 0x3f00_0000 | 0x003b_0000

    /// The keyring of `user`, whose account is `uid`/`gid`.
    public init(user: UserName, uid: uid_t, gid: gid_t) {
        self.user = user
        self.uid = uid
        self.gid = gid
    }

    /// The keyring of the account running this process.
    public static func current() throws -> VaultKeyring {
        let uid = getuid()
        guard let name = UserName.accountName(of: uid), let user = try? UserName(name) else {
            throw SecureRoomError.invalidUserName("uid \(uid)")
        }
        return VaultKeyring(user: user, uid: uid, gid: getgid())
    }

    private var description: String { "secureroom:vault:\(user.rawValue)" }

    /// Puts `vaultKey` in the user's keyring for `timeout` seconds, replacing an earlier one.
    ///
    /// Setting a key's permissions and timeout needs *possession* of it, which comes from
    /// the calling thread's own keyrings. A caller whose session keyring does not link the
    /// user keyring (su from a shell that ran `keyctl new_session`, or from another user's
    /// session) does not possess a key added straight to @u: keyctl_setperm would fail
    /// with EACCES and the key would stay with no timeout. So the key is made in the
    /// thread keyring (always possessed), given its permissions and timeout there, and
    /// only then linked into @u and unlinked from the thread keyring. A failure at any
    /// step invalidates the key: it is either in @u with its timeout, or nowhere. The thread
    /// keyring, empty again, stays attached to the calling thread (there is no call to
    /// detach one); nothing can be reached through it.
    ///
    /// `sessionBound`: the key belongs to the user's login sessions (counted by
    /// `SessionCounter`), so it locks when no session of the user is left, not only at its
    /// timeout.
    public func store(_ vaultKey: SecretBytes, timeout: Int64, sessionBound: Bool = false) throws {
        let payload = SecretBytes(count: Self.payloadLength)
        let expiry = UInt64(max(0, Int64(time(nil)) + timeout))
        payload.withUnsafeMutableBytes { bytes in
            for (index, byte) in Self.magic.enumerated() { bytes[index] = byte }
            if sessionBound { bytes[Self.flagsOffset] = Self.sessionBoundFlag }
            for index in 0..<8 {
                bytes[Self.magic.count + index] = UInt8(truncatingIfNeeded: expiry >> (56 - 8 * index))
            }
            vaultKey.withUnsafeBytes { key in
                if let source = key.baseAddress {
                    bytes.baseAddress?.advanced(by: Self.magic.count + 8).copyMemory(from: source, byteCount: key.count)
                }
            }
        }
        try asOwner {
            let id = payload.withUnsafeBytes {
                add_key("user", description, $0.baseAddress, $0.count, KEY_SPEC_THREAD_KEYRING)
            }
            guard id > 0 else { throw SecureRoomError.system(operation: "add_key", path: description, errno: errno) }
            defer { _ = keyctl_unlink(id, KEY_SPEC_THREAD_KEYRING) }
            for (operation, call) in [
                ("keyctl_setperm", { keyctl_setperm(id, Self.permissions) }),
                ("keyctl_set_timeout", { keyctl_set_timeout(id, UInt32(clamping: timeout)) }),
                ("keyctl_link to the user keyring", { keyctl_link(id, KEY_SPEC_USER_KEYRING) }),
            ] {
                guard call() == 0 else {
                    let failure = errno
                    _ = keyctl_invalidate(id)
                    throw SecureRoomError.system(operation: operation, path: description, errno: failure)
                }
            }
        }
    }

    /// Puts `vaultKey` in the keyring for a caller that counts no session of its own (no
    /// root: `secureroom-vault unlock` and `init`, a screen locker): bound to the user's
    /// sessions in `sessions` when one is live now, else with only its timeout
    /// (docs/SECURITY.md §3.5). A session that ended between the look and the store found
    /// no key to remove; the key goes then. False if it went.
    @discardableResult
    public func storeFollowingSessions(_ vaultKey: SecretBytes, timeout: Int64, in sessions: SessionCounter) throws
        -> Bool
    {
        let bound = sessions.hasLiveSessions(of: user)
        try store(vaultKey, timeout: timeout, sessionBound: bound)
        guard bound, !sessions.hasLiveSessions(of: user) else { return true }
        try remove()
        return false
    }

    /// The unlocked vault key and the seconds it has left, or nil if the vault is locked.
    /// With `sessions` (the `sessions=` directory), a key a login session put there whose
    /// sessions have all ended (the last one died without closing) is removed, and the
    /// vault is locked; where the session list cannot be read, the timeout alone decides.
    public func load(checkingSessionsIn sessions: String? = nil) throws -> (vaultKey: SecretBytes, secondsLeft: Int64)?
    {
        guard let key = try loadPayload() else { return nil }
        if key.sessionBound, let sessions, SessionCounter(path: sessions).liveSessions(of: user) == 0 {
            try remove()
            return nil
        }
        return (key.vaultKey, key.secondsLeft)
    }

    /// Whether the key in the keyring (if any) was put there by a login session.
    public func isSessionBound() throws -> Bool { try loadPayload()?.sessionBound ?? false }

    private func loadPayload() throws -> (vaultKey: SecretBytes, secondsLeft: Int64, sessionBound: Bool)? {
        let payload = SecretBytes(count: Self.payloadLength + 1)
        let length: Int = try asOwner {
            guard let id = try find() else { return -1 }
            let read = payload.withUnsafeMutableBytes { keyctl_read(id, $0.baseAddress, $0.count) }
            if read < 0 && [ENOKEY, EKEYEXPIRED, EKEYREVOKED].contains(errno) { return -1 }
            guard read >= 0 else {
                throw SecureRoomError.system(operation: "keyctl_read", path: description, errno: errno)
            }
            return read
        }
        guard length >= 0 else { return nil }
        return try payload.withUnsafeBytes { bytes in
            let flags = length > Self.flagsOffset ? bytes[Self.flagsOffset] : 0
            guard length == Self.payloadLength, flags & ~Self.sessionBoundFlag == 0,
                zip(bytes.prefix(Self.magic.count).indices, Self.magic).allSatisfy({
                    $0 == Self.flagsOffset || bytes[$0] == $1
                })
            else {
                throw SecureRoomError.corruptRecord(
                    path: "keyring key \(description)", reason: "not a SecureRoom vault key")
            }
            var expiry: UInt64 = 0
            for index in 0..<8 { expiry = expiry << 8 | UInt64(bytes[Self.magic.count + index]) }
            let key = SecretBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[(Self.magic.count + 8)..<length]))
            return (key, max(0, Int64(clamping: expiry) - Int64(time(nil))), flags == Self.sessionBoundFlag)
        }
    }

    /// Removes the key (keyctl invalidate); true if there was one.
    @discardableResult
    public func remove() throws -> Bool {
        try asOwner {
            guard let id = try find() else { return false }
            guard keyctl_invalidate(id) == 0 || errno == ENOKEY || errno == EKEYREVOKED || errno == EKEYEXPIRED else {
                throw SecureRoomError.system(operation: "keyctl_invalidate", path: description, errno: errno)
            }
            return true
        }
    }

    /// The key's serial in @u, or nil if there is none (or it expired).
    private func find() throws -> key_serial_t? {
        let id = keyctl_search(KEY_SPEC_USER_KEYRING, "user", description, 0)
        if id < 0 && [ENOKEY, EKEYEXPIRED, EKEYREVOKED].contains(errno) { return nil }
        guard id > 0 else { throw SecureRoomError.system(operation: "keyctl_search", path: description, errno: errno) }
        return key_serial_t(id)
    }

    /// Runs `body` as the owner, so that @u is the owner's user keyring and new keys are
    /// theirs. Root switches the calling thread's real and effective ids to the owner's for
    /// the call (as pam_keyinit does; raw system calls, so other threads of the host keep
    /// theirs), with saved uid 0, and switches back to exactly the ids it had: effective
    /// uid 0 first (allowed by the saved uid), then the rest. A setuid-root host (su: real
    /// uid the invoking user) gets its real uid back too.
    private func asOwner<T>(_ body: () throws -> T) throws -> T {
        var (realUID, effectiveUID, savedUID): (uid_t, uid_t, uid_t) = (0, 0, 0)
        var (realGID, effectiveGID, savedGID): (gid_t, gid_t, gid_t) = (0, 0, 0)
        guard sr_getresuid(&realUID, &effectiveUID, &savedUID) == 0,
            sr_getresgid(&realGID, &effectiveGID, &savedGID) == 0
        else {
            throw SecureRoomError.system(operation: "getresuid", path: "", errno: errno)
        }
        if realUID == uid && effectiveUID == uid { return try body() }
        guard effectiveUID == 0 else {
            throw SecureRoomError.system(operation: "keyring of \(user)", path: "", errno: EPERM)
        }
        guard sr_thread_setresgid(gid, gid, gid_t.max) == 0 else {
            throw SecureRoomError.system(operation: "setresgid", path: "", errno: errno)
        }
        let switched = sr_thread_setresuid(uid, uid, 0) == 0
        let switchFailure = errno
        let result =
            switched
            ? Result { try body() }
            : .failure(SecureRoomError.system(operation: "setresuid", path: "", errno: switchFailure))
        // Back: effective uid 0 through the saved uid, then every id as it was.
        guard sr_thread_setresuid(uid_t.max, 0, uid_t.max) == 0,
            sr_thread_setresuid(realUID, effectiveUID, savedUID) == 0,
            sr_thread_setresgid(realGID, effectiveGID, savedGID) == 0
        else {
            throw SecureRoomError.system(
                operation: "restoring the process ids after the keyring", path: "", errno: errno)
        }
        return try result.get()
    }
}
