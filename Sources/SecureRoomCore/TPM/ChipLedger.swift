// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc
import SecureRoomBase

/// SecureRoom's account of the PIN indices it defines on the chip (docs/DESIGN.md §11,
/// "The chip's ledger"): every index at `PinIndexBinding.handles` is named by a credential,
/// the decoys' record, or an entry (`LedgerEntry`, `users/.tpm-HANDLE`), from before
/// NV_DefineSpace until NV_UndefineSpace. So a process killed between the two, or a record
/// replaced on a hardened chip (where only the TPM recovery secret frees an index), leaves
/// an entry that says whose the index is, and the indices a user's own PINs leave behind
/// count against that user alone (`perUserLimit`).
///
/// No lock is shared between users: an entry is created without replacing
/// (`ProtectedDirectory.createLocked`), so two processes racing for a handle get one each,
/// and a user's count and new entry are taken under that user's own lock. The process
/// that defines an index holds its entry's `flock`, taken before the entry appears, until
/// the record naming it is written (`Claim`): an entry nobody holds belongs to a dead
/// process or to a replaced record, and the next binding for the same user (or the decoys)
/// frees it where the owner's authorization is a factory chip's empty one.
struct ChipLedger {
    /// The state whose `users/` holds the ledger.
    let store: StateStore

    /// How many indices no record names may be charged to one user before that user's own
    /// change, enrolment or re-derivation is refused (`TPMProblem.pruneNeeded`): an
    /// administrator's `secureroom tpm prune` frees them.
    static let perUserLimit = 8

    /// Whom a new index is for, and whose limit it counts against.
    enum Charge: Equatable {
        /// The user's own change, enrolment or re-derivation: counted against the user.
        case user(UserName)
        /// An administrator's `set` or removal for the user: counted against nobody.
        case administrator(UserName)
        /// The decoys' index: counted against nobody.
        case decoys

        /// The entry this charge writes.
        var entry: LedgerEntry {
            switch self {
            case .user(let user): return LedgerEntry(user: user, charged: true)
            case .administrator(let user): return LedgerEntry(user: user, charged: false)
            case .decoys: return LedgerEntry(user: nil, charged: false)
            }
        }
    }

    /// An entry this process holds while its index is defined and the record naming it is
    /// written. `settle` removes it once a record names the index; a claim dropped without
    /// it (a failure, a crash) leaves the entry, which the next binding of its user or
    /// `tpm prune` takes care of.
    final class Claim {
        /// The handle the entry names.
        fileprivate(set) var handle: UInt32
        /// The entry's file, `flock`ed while this claim lives.
        fileprivate var file: FileDescriptor?
        /// Whom it is for.
        let charge: Charge

        fileprivate init(handle: UInt32, file: FileDescriptor, charge: Charge) {
            self.handle = handle
            self.file = file
            self.charge = charge
        }
    }

    /// Thrown by `claim` for a user's own binding while another binding of that user is in
    /// flight (at most one define per user at a time).
    struct BindingInFlight: Error {}

    /// Before an index is defined for `charge`: frees what the user's dead entries can free
    /// (`reap`), then, for a user's own binding and under that user's lock, refuses a user
    /// at their limit (`pruneNeeded`) or with another binding in flight (`BindingInFlight`);
    /// writes and holds an entry at a handle nothing names.
    func claim(for charge: Charge, on chip: TPMChip) throws -> Claim {
        try reap(charge.entry.user, on: chip)
        let directory = try store.users()
        guard case .user(let user) = charge else {
            let (entries, named) = try snapshot(directory)
            return try write(charge, avoiding: named.union(entries.keys), directory)
        }
        return try store.withExclusiveLock(for: user) {
            let (entries, named) = try snapshot(directory)
            var dead = 0
            for (handle, entry) in entries
            where entry?.user == user && entry?.charged == true && !named.contains(handle) {
                switch try directory.tryLock(LedgerEntry.fileName(handle)) {
                case .busy: throw BindingInFlight()
                case .held, .missing: dead += 1
                }
            }
            if dead >= Self.perUserLimit { throw SecureRoomError.tpm(.pruneNeeded) }
            return try write(charge, avoiding: named.union(entries.keys), directory)
        }
    }

    /// After NV_DefineSpace found `claim`'s handle taken (by anyone): moves the claim to
    /// another free handle, the new entry written before the old one goes.
    func move(_ claim: Claim) throws {
        let directory = try store.users()
        let (entries, named) = try snapshot(directory)
        let moved = try write(claim.charge, avoiding: named.union(entries.keys).union([claim.handle]), directory)
        try directory.remove(LedgerEntry.fileName(claim.handle))
        claim.handle = moved.handle
        claim.file = moved.file
    }

    /// A record naming `claim`'s index is written: the entry goes.
    func settle(_ claim: Claim) {
        _ = try? store.users().remove(LedgerEntry.fileName(claim.handle))
        claim.file = nil
    }

    /// `claim`'s index will not be named by a record (its record was not written): it is
    /// undefined where the owner's authorization is empty, and its entry goes then; on a
    /// hardened chip the entry stays, charged as it was.
    func abandon(_ claim: Claim, on chip: TPMChip) {
        if free(claim.handle, on: chip) { settle(claim) }
        claim.file = nil
    }

    /// Before the record naming `binding` is replaced or removed (the caller holds the
    /// user's lock; no TPM command runs here): an entry for its index, so that it is never
    /// unnamed; nil where an entry names it already.
    func willReplace(_ binding: PinIndexBinding, charge: Charge) throws -> Claim? {
        try write(charge, at: binding.index, store.users())
    }

    /// After the record naming `binding` (whose entry `claim` is) was replaced or removed:
    /// its index is undefined where the owner's authorization is empty, and its entry goes
    /// then; so it does when a record names the handle again (the write did not happen) or
    /// the index is not on this chip (its storage key's Name differs: after a clear the
    /// handle may hold another PIN's index). Otherwise the entry stays (a hardened chip,
    /// until `tpm prune`). Returns whether the index stayed on the chip.
    func replaced(_ claim: Claim, binding: PinIndexBinding, on chip: TPMChip) -> Bool {
        defer { claim.file = nil }
        let namedAgain = (try? store.pinIndicesNamed())?.contains(claim.handle) == true
        // A chip that answers with another storage key holds no index of this binding.
        func otherChip() -> Bool {
            (try? chip.withConnection { try $0.storageKeyName() }).map { $0 != binding.sealed.parentName } ?? false
        }
        guard namedAgain || otherChip() || free(claim.handle, on: chip) else { return true }
        settle(claim)
        return false
    }

    /// Entries whose index nobody is defining now (no live process holds them) and no
    /// record names, by handle, for `tpm prune` and `tpm status`; each held (`flock`ed) by
    /// the returned descriptors until they are released.
    func idleEntries() throws -> [(handle: UInt32, entry: LedgerEntry?, hold: FileDescriptor)] {
        let directory = try store.users()
        let named = try store.pinIndicesNamed()
        var idle: [(handle: UInt32, entry: LedgerEntry?, hold: FileDescriptor)] = []
        for (handle, entry) in try entries(directory) where !named.contains(handle) {
            guard case .held(let hold) = try directory.tryLock(LedgerEntry.fileName(handle)) else { continue }
            idle.append((handle, entry, hold))
        }
        return idle
    }

    /// Handles that an entry names, held by a live process or not.
    func entryHandles() throws -> Set<UInt32> {
        Set(try entries(store.users()).keys)
    }

    /// Removes the entry for `handle` (its index was undefined by `tpm prune`).
    func forget(_ handle: UInt32) throws { try store.users().remove(LedgerEntry.fileName(handle)) }

    /// The entries of `user` (nil: the decoys'), charged or not, that no live process holds
    /// and no record names: each is removed when its index is gone from the chip or can be
    /// undefined with the empty owner authorization. An entry is held while its index is
    /// undefined, so no other process can take its handle meanwhile.
    private func reap(_ user: UserName?, on chip: TPMChip) throws {
        let directory = try store.users()
        let (entries, named) = try snapshot(directory)
        var held: [(UInt32, FileDescriptor)] = []
        for (handle, entry) in entries where entry != nil && entry?.user == user {
            let name = LedgerEntry.fileName(handle)
            guard case .held(let file) = try directory.tryLock(name) else { continue }
            if named.contains(handle) {
                // A record names it: written after the entry, by a process that died
                // before removing it. Only its file is left.
                try directory.remove(name)
                continue
            }
            held.append((handle, file))
        }
        for (handle, file) in held where free(handle, on: chip) {
            try directory.remove(LedgerEntry.fileName(handle))
            withExtendedLifetime(file) {}
        }
    }

    /// Undefines the index at `handle` with the empty owner authorization (a factory chip);
    /// true when it is gone (or was never defined), false when it stays (a hardened chip,
    /// no chip answering). The caller holds the handle's entry, so nobody else defines it.
    private func free(_ handle: UInt32, on chip: TPMChip) -> Bool {
        (try? chip.withConnection { connection -> Bool in
            guard try !connection.nvIndices(in: handle...handle).isEmpty else { return true }
            try PinCounter(connection: connection, index: handle).undefine(ownerAuth: [])
            return true
        }) ?? false
    }

    /// The ledger's entries (nil: unreadable, for instance torn by a crash while it was
    /// written; it names its handle all the same), then the handles records name. Read in
    /// that order, a handle whose entry goes once its record is written is seen in one or
    /// the other.
    private func snapshot(_ directory: ProtectedDirectory) throws -> ([UInt32: LedgerEntry?], Set<UInt32>) {
        let entries = try entries(directory)
        return (entries, try store.pinIndicesNamed())
    }

    /// The ledger's entries by the handle they name.
    private func entries(_ directory: ProtectedDirectory) throws -> [UInt32: LedgerEntry?] {
        var found: [UInt32: LedgerEntry?] = [:]
        for name in try directory.hiddenEntries(prefix: LedgerEntry.prefix) {
            guard let handle = LedgerEntry.handle(ofFile: name) else { continue }
            let bytes = try? directory.read(name, limit: LedgerEntry.maximumSize)
            found[handle] = bytes.flatMap { $0 }.flatMap {
                try? LedgerEntry(parsing: $0, path: directory.path + "/" + name)
            }
        }
        return found
    }

    /// Writes and holds an entry for `charge` at a random handle not in `avoiding` (what
    /// a `snapshot` found named, and more).
    private func write(_ charge: Charge, avoiding: Set<UInt32>, _ directory: ProtectedDirectory) throws -> Claim {
        var taken = avoiding
        for _ in 0..<1000 {
            let handle = UInt32.random(in: PinIndexBinding.handles)
            guard !taken.contains(handle) else { continue }
            if let claim = try write(charge, at: handle, directory) { return claim }
            taken.insert(handle)  // another process's entry, written meanwhile
        }
        throw SecureRoomError.tpm(.full)
    }

    /// Writes (durably) and holds an entry for `charge` at `handle`; nil where an entry
    /// names it already.
    private func write(_ charge: Charge, at handle: UInt32, _ directory: ProtectedDirectory) throws -> Claim? {
        try directory.createLocked(LedgerEntry.fileName(handle), contents: charge.entry.serialized()).map {
            Claim(handle: handle, file: $0, charge: charge)
        }
    }
}
