// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// `secureroom tpm harden` (docs/SECURITY.md §1.2, TPM-PIN-INDEX.notes.md §10–11): after
/// it, nobody without the TPM recovery secret can remove a PIN's counter, define a forgery
/// in its place, set a counter back or clear the chip, root included, while PINs are still
/// bound without the secret. In order, on one connection:
///
/// 1. refuse a chip whose owner or lockout authorization is already set (hardened before,
///    or another owner's: guessing it would count);
/// 2. persist the storage key at 0x81000001 (a hardened owner can no longer create it);
/// 3. the dictionary-attack parameters and the lockout authorization := the secret;
/// 4. the owner's policy := PolicyCommandCode(NV_DefineSpace) and its authorization := the
///    secret (`OwnerHierarchy.restrictToDefiningIndices`).
///
/// The platform hierarchy is the firmware's: while it is open (swtpm; a PC whose firmware
/// does not close it at boot), it can still remove any index, and `Outcome` says so.
public enum ChipHardening {
    /// What the chip looks like afterwards.
    public struct Outcome: Sendable {
        /// Whether the platform hierarchy is enabled with an empty authorization.
        public let platformOpen: Bool
    }

    /// Where a chip stands.
    public struct State: Sendable {
        /// Owner and lockout authorizations are both set.
        public let hardened: Bool
        /// Either is set (hardened, part-hardened, or another owner's): `harden` refuses.
        public let taken: Bool
        /// The platform hierarchy is enabled with an empty authorization.
        public let platformOpen: Bool
    }

    /// Hardens `chip` with `secret` (steps above). A failure after step 2 leaves the chip
    /// part-hardened with `secret`: the caller shows it in any case.
    public static func harden(
        _ chip: TPMChip, secret: TPMRecoverySecret, maxTries: UInt32, recoverySeconds: UInt32,
        lockoutRecovery: UInt32
    ) throws -> Outcome {
        try chip.withConnection { connection in
            let status = try DAStatus.read(connection)
            if status.ownerAuthSet || status.lockoutAuthSet { throw SecureRoomError.tpm(.failed(alreadyTaken)) }
            let owner = OwnerHierarchy(connection: connection)
            try owner.persistStorageKey()
            try secret.withAuth { auth in
                try LockoutHierarchy(connection: connection)
                    .harden(
                        maxTries: maxTries, recoverySeconds: recoverySeconds, lockoutRecovery: lockoutRecovery,
                        newAuth: auth)
                try owner.restrictToDefiningIndices(newAuth: auth)
            }
            return Outcome(platformOpen: try owner.platformHierarchyIsOpen())
        }
    }

    /// Why `harden` refuses a chip whose authorizations are taken.
    public static let alreadyTaken =
        "the chip already has an owner or lockout authorization (hardened before, or set by another owner); "
        + "nothing changed"

    /// Where `chip` stands (no authorization tried, nothing counted).
    public static func state(of chip: TPMChip) throws -> State {
        try chip.withConnection { connection in
            let status = try DAStatus.read(connection)
            return State(
                hardened: status.ownerAuthSet && status.lockoutAuthSet,
                taken: status.ownerAuthSet || status.lockoutAuthSet,
                platformOpen: try OwnerHierarchy(connection: connection).platformHierarchyIsOpen())
        }
    }

    /// Removes, with the owner authorization `secret`, every index at SecureRoom's handles
    /// that no record of `store` names and no process is defining now (a ledger entry that
    /// its process holds, `ChipLedger`): the counters of PINs replaced or removed on a
    /// hardened chip, and of bindings whose process died, which nothing else can free; the
    /// ledger's entries for them go too. Returns how many indices were removed and how many
    /// the records name. On a chip that is not hardened (`secret` nil) the owner's empty
    /// authorization does it.
    public static func prune(_ chip: TPMChip, secret: TPMRecoverySecret?, store: StateStore) throws -> (
        freed: Int, named: Int
    ) {
        let ledger = ChipLedger(store: store)
        let idle = try ledger.idleEntries()  // held until the end: nobody takes their handles meanwhile
        let named = try store.pinIndicesNamed()
        let defining = try ledger.entryHandles().subtracting(idle.map(\.handle))
        let freed = try prune(chip, secret: secret, keeping: named.union(defining))
        for entry in idle { try ledger.forget(entry.handle) }
        withExtendedLifetime(idle) {}
        return (freed, named.count)
    }

    /// Removes, with the owner authorization `secret`, every index at SecureRoom's handles
    /// that `named` does not hold. Returns how many were removed.
    private static func prune(_ chip: TPMChip, secret: TPMRecoverySecret?, keeping named: Set<UInt32>) throws -> Int {
        try chip.withConnection { connection in
            let unnamed = try connection.unnamedPinIndices(named)
            try asOwner(secret) { auth in
                for index in unnamed { try PinCounter(connection: connection, index: index).undefine(ownerAuth: auth) }
            }
            return unnamed.count
        }
    }

    /// Sets the counter of `binding` back to 0 with the owner authorization `secret`, its
    /// limit to `limit` (`secureroom reset --tpm-secret`). A wrong secret is refused by the
    /// chip (owner authorizations are not counted by its dictionary-attack logic).
    public static func resetCounter(
        of binding: PinIndexBinding, limit: Int, on chip: TPMChip, secret: TPMRecoverySecret
    ) throws {
        try chip.withConnection { connection in
            // Only on the chip the binding was made on: after a clear, the handle may hold
            // another PIN's index.
            guard try connection.storageKeyName() == binding.sealed.parentName else { throw TPMError.parentMismatch }
            try asOwner(secret) {
                try PinCounter(connection: connection, index: binding.index).reset(limit: UInt32(limit), ownerAuth: $0)
            }
        }
    }

    /// Runs `body` with the owner authorization `secret` (nil: a factory chip's empty one);
    /// the chip's refusal of it becomes one message (owner authorizations are not counted
    /// by its dictionary-attack logic).
    private static func asOwner(_ secret: TPMRecoverySecret?, _ body: ([UInt8]) throws -> Void) throws {
        do {
            if let secret { try secret.withAuth(body) } else { try body([]) }
        } catch TPMError.wrongAuth {
            throw SecureRoomError.tpm(.failed("the chip refused the TPM recovery secret"))
        }
    }
}
