// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc

/// The protected state directory (docs/FORMAT.md §1):
///
///     DIR/            root:root 0700
///       pepper        0600   (or wherever `pepper=` points)
///       users/        0700
///         NAME.credential   0600   CredentialRecord
///         NAME.lockout      0600   LockoutRecord
///         NAME.recovery     0600   RecoveryRecord (only once a vault is set up)
///         NAME.offer        0600   OfferRecord (a declined enrolment offer)
///         NAME.lock         0600   empty; flock'd while a user's records change
///         .decoy-XX         0600   LockoutRecord of decoy slot XX (TallyFile.decoy)
///         .decoy.lock       0600   empty; flock'd while a decoy slot changes
///         .tpm-HHHHHHHH     0600   LedgerEntry: a PIN index no record names (ChipLedger)
///
/// Every access re-checks ownership and modes (ProtectedDirectory); the store caches the
/// opened directories for the life of one transaction only.
public final class StateStore {
    /// The options in effect.
    public let configuration: Configuration
    /// Told once, after a second of waiting for a user's lock, who holds it (the tools
    /// print it; the module leaves it nil and its log line at giving up says it).
    public var lockWaitNotice: ((String) -> Void)?
    /// Set, a lock still held after `ProtectedDirectory.lockPatience` is taken from its
    /// holders by ending them, each told here: for root's commands only (docs/DESIGN.md §4,
    /// "A stalled holder"), which must complete whatever a user's process holds. A check
    /// never does: it gives up and the stack goes on to the password.
    public var stalledLockHoldersEnded: ((String) -> Void)?
    private let owner: uid_t
    private var cachedRoot: ProtectedDirectory?
    private var cachedUsers: ProtectedDirectory?

    /// A store for `configuration`. `owner` is the uid records must belong to (root).
    public init(configuration: Configuration, owner: uid_t = 0) {
        self.configuration = configuration
        self.owner = owner
    }

    /// Creates the directory, `users/` and a new pepper. Refuses to replace an existing pepper.
    public func initialize() throws {
        cachedRoot = try ProtectedDirectory.open(configuration.directory, create: true, owner: owner)
        _ = try root().subdirectory("users", create: true)
        let (pepperDirectory, pepperName) = try pepperLocation()
        if try pepperDirectory.read(pepperName, limit: 4096) != nil {
            throw SecureRoomError.alreadyInitialized(path: configuration.effectivePepperPath)
        }
        try pepperDirectory.writeAtomically(pepperName, contents: try Pepper.generate().serialized())
    }

    /// The pepper; throws `stateMissing` if there is none.
    public func pepper() throws -> Pepper {
        let (directory, name) = try pepperLocation()
        guard let bytes = try directory.read(name, limit: 4096) else {
            throw SecureRoomError.stateMissing(path: configuration.effectivePepperPath)
        }
        return try Pepper(parsing: bytes, path: configuration.effectivePepperPath)
    }

    /// The user's credential, or nil if the user has no PIN.
    public func credential(for user: UserName) throws -> CredentialRecord? {
        try record(
            of: user, "credential", limit: CredentialRecord.maximumSize,
            parse: CredentialRecord.init(parsing:path:), owner: \.user)
    }

    /// The user's vault recovery record, or nil if the user never set up a vault.
    public func recovery(for user: UserName) throws -> RecoveryRecord? {
        try record(
            of: user, "recovery", limit: RecoveryRecord.maximumSize,
            parse: RecoveryRecord.init(parsing:path:), owner: \.user)
    }

    /// The user's declined enrolment offer, or nil if there is none.
    public func offer(for user: UserName) throws -> OfferRecord? {
        try record(
            of: user, "offer", limit: OfferRecord.maximumSize,
            parse: OfferRecord.init(parsing:path:), owner: \.user)
    }

    /// Writes the offer record atomically.
    public func write(_ record: OfferRecord) throws {
        try users().writeAtomically("\(record.user.rawValue).offer", contents: record.serialized())
    }

    /// Removes the user's offer record, if any.
    public func removeOffer(for user: UserName) throws {
        try users().remove("\(user.rawValue).offer")
    }

    /// `users/NAME.EXTENSION` parsed, or nil if there is none; a record naming another
    /// user is corrupt.
    private func record<Record>(
        of user: UserName, _ fileExtension: String, limit: Int,
        parse: ([UInt8], String) throws -> Record,
        owner: (Record) -> UserName
    ) throws -> Record? {
        let name = "\(user.rawValue).\(fileExtension)"
        let directory = try users()
        guard let bytes = try directory.read(name, limit: limit) else { return nil }
        let record = try parse(bytes, directory.path + "/" + name)
        guard owner(record) == user else {
            throw SecureRoomError.corruptRecord(path: directory.path + "/" + name, reason: "belongs to another user")
        }
        return record
    }

    /// Writes the recovery record atomically.
    public func write(_ record: RecoveryRecord) throws {
        try users().writeAtomically("\(record.user.rawValue).recovery", contents: record.serialized())
    }

    /// The user's tally (empty if none was recorded yet).
    public func lockout(for user: UserName) throws -> LockoutRecord { try lockout(at: .user(user)) }

    /// The tally kept in `file` (empty if none was recorded yet).
    public func lockout(at file: TallyFile) throws -> LockoutRecord {
        let directory = try users()
        guard let bytes = try directory.read(file.fileName, limit: LockoutRecord.maximumSize) else {
            return LockoutRecord()
        }
        return try LockoutRecord(parsing: bytes, path: directory.path + "/" + file.fileName)
    }

    /// The decoys' TPM objects, or nil while no PIN has been bound to a TPM.
    public func tpmDecoy() throws -> TPMDecoy? {
        let directory = try users()
        guard let bytes = try directory.read(TPMDecoy.fileName, limit: 4096) else { return nil }
        return try TPMDecoy(parsing: bytes, path: directory.path + "/" + TPMDecoy.fileName)
    }

    /// The PIN indices the records name: every readable credential's and the decoys'.
    public func pinIndicesNamed() throws -> Set<UInt32> {
        var named: Set<UInt32> = []
        for user in try enrolledUsers() {
            if case .pinIndex(let binding)? = (try? credential(for: user))??.binding { named.insert(binding.index) }
        }
        if case .pinIndex(let binding)? = try tpmDecoy() { named.insert(binding.index) }
        return named
    }

    /// Writes the decoys' TPM objects atomically.
    public func write(_ decoy: TPMDecoy) throws {
        try users().writeAtomically(TPMDecoy.fileName, contents: decoy.serialized())
    }

    /// Writes the credential atomically.
    public func write(_ record: CredentialRecord) throws {
        try users().writeAtomically("\(record.user.rawValue).credential", contents: record.serialized())
    }

    /// Writes the tally atomically (and durably: it is fsync'd before this returns).
    public func write(_ record: LockoutRecord, for user: UserName) throws { try write(record, at: .user(user)) }

    /// Writes the tally in `file` atomically and durably. Decoy slots are dot files, which
    /// are not users: `enrolledUsers` and `status` never list them.
    public func write(_ record: LockoutRecord, at file: TallyFile) throws {
        try users().writeAtomically(file.fileName, contents: record.serialized())
    }

    /// The user's records a corrupt or unreadable file can stand in for.
    public enum RecordKind: String, Sendable, CaseIterable {
        /// `NAME.credential`.
        case credential
        /// `NAME.lockout`.
        case lockout
    }

    /// Moves the user's `kind` record aside, under the user's lock, to
    /// `NAME.KIND.corrupt-YYYYMMDDTHHMMSSZ` (kept, root-only, for whoever investigates);
    /// returns the new name, nil if there was no such record.
    public func moveAside(_ kind: RecordKind, of user: UserName, at seconds: Int64) throws -> String? {
        let name = "\(user.rawValue).\(kind.rawValue)"
        let stamp = ISO8601.utc(seconds).filter { $0 != "-" && $0 != ":" }
        let aside = "\(name).corrupt-\(stamp)"
        return try withExclusiveLock(for: user) { try users().rename(name, to: aside) ? aside : nil }
    }

    /// Removes the user's credential (the PIN) and tally. The recovery record stays: it
    /// is the only way back into the vault once the PIN is gone.
    public func removeRecords(for user: UserName) throws {
        let directory = try users()
        try directory.remove("\(user.rawValue).credential")
        try directory.remove("\(user.rawValue).lockout")
    }

    /// Runs `body` holding the user's exclusive lock. The lock file is never renamed or
    /// removed, and the kernel drops the lock when the holder exits.
    public func withExclusiveLock<T>(for user: UserName, _ body: () throws -> T) throws -> T {
        try withExclusiveLock(on: .user(user), body)
    }

    /// Runs `body` holding the lock of `file`'s tally.
    public func withExclusiveLock<T>(on file: TallyFile, _ body: () throws -> T) throws -> T {
        let lock = try users().lock(
            file.lockName, endingStalledHolders: stalledLockHoldersEnded, notice: lockWaitNotice)
        defer { withExtendedLifetime(lock) {} }
        return try body()
    }

    /// Users that have a credential record, sorted.
    public func enrolledUsers() throws -> [UserName] {
        try users().entries().compactMap { name in
            guard name.hasSuffix(".credential") else { return nil }
            return try? UserName(String(name.dropLast(".credential".count)))
        }
    }

    /// The state directory, opened (path walked and checked) once per store.
    private func root() throws -> ProtectedDirectory {
        if let cachedRoot { return cachedRoot }
        let root = try ProtectedDirectory.open(configuration.directory, owner: owner)
        cachedRoot = root
        return root
    }

    /// `users/`, opened once per store (the chip's ledger, `ChipLedger`, lives there too).
    func users() throws -> ProtectedDirectory {
        if let cachedUsers { return cachedUsers }
        let users = try root().subdirectory("users")
        cachedUsers = users
        return users
    }

    /// The pepper's directory and file name: the state directory itself by default, or
    /// wherever `pepper=` points (which must already exist, with the same checks).
    private func pepperLocation() throws -> (ProtectedDirectory, String) {
        let path = configuration.effectivePepperPath
        guard let slash = path.lastIndex(of: "/"), path.index(after: slash) != path.endIndex else {
            throw SecureRoomError.invalidConfiguration("pepper=\(path) is not a file path")
        }
        let parent = slash == path.startIndex ? "/" : String(path[..<slash])
        let directory =
            parent == configuration.directory
            ? try root() : try ProtectedDirectory.open(parent, owner: owner)
        return (directory, String(path[path.index(after: slash)...]))
    }
}
