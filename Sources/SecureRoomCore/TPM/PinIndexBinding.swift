// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// A version 3 binding (docs/FORMAT.md §2.1): the PIN's own failure counter in the chip
/// (`PinCounter`, an NV index of type PIN_FAIL whose authorization value is half of the
/// PIN's argon2 output) and a secret sealed behind it, which only a policy session in which
/// that index accepted its authorization unseals. Every wrong PIN is counted on the index
/// and nowhere else; at its limit the index refuses the right PIN too.
public struct PinIndexBinding: Equatable, Sendable {
    /// The index's handle, in `handles`.
    public var index: UInt32
    /// The written index's Name (0x000b ‖ SHA-256 of its public area), which the sealed
    /// object's policy names: a check refuses an index of another Name before sending
    /// anything.
    public var indexName: [UInt8]
    /// The sealed 32-byte secret (marshalled TPM2B_PUBLIC and TPM2B_PRIVATE).
    public var sealed: ObjectBlob
    /// The boot the secret was sealed to (`tpm_pcrs=`), nil when none.
    public var pcrs: PCRPolicy?

    /// The handles SecureRoom defines its indices at: part of the owner's range
    /// (0x01800000–0x01BFFFFF in TCG's registry of reserved handles) clear of the ranges
    /// registered to systemd and the Linux community.
    public static let handles: ClosedRange<UInt32> = 0x01A0_0000...0x01A0_FFFF

    /// A binding from its index and the object sealed behind it.
    public init(index: UInt32, indexName: [UInt8], sealed: ObjectBlob, pcrs: PCRPolicy? = nil) {
        self.index = index
        self.indexName = indexName
        self.sealed = sealed
        self.pcrs = pcrs
    }

    /// Where the PIN stands on `chip`, read without counting anything (the index's read
    /// branch, `TPM2_PCR_Read`): its wrong PINs and limit, and whether the boot is the one
    /// the secret was sealed to.
    public func standing(on chip: TPMChip) throws -> (count: UInt32, limit: UInt32, bootMatches: Bool) {
        try chip.withConnection { connection in
            let counter = try PinCounter(connection: connection, index: index).read()
            let boot = try pcrs.map { try PCRPolicy.current($0.pcrs, connection) }
            return (counter.count, counter.limit, boot == pcrs)
        }
    }

    /// The record lines, in FORMAT.md's order.
    var fields: [(String, String)] {
        [
            ("tpm-parent", Hex.encode(sealed.parentName)),
            ("tpm-index", Hex.encode(PinCounter.bigEndian(index))),
            ("tpm-index-name", Hex.encode(indexName)),
            ("tpm-sealed-public", Hex.encode(sealed.publicBytes)),
            ("tpm-sealed-private", Hex.encode(sealed.privateBytes)),
        ]
            + (pcrs.map {
                [
                    ("tpm-pcrs", $0.pcrs.map(String.init).joined(separator: ",")),
                    ("tpm-pcr-digest", Hex.encode($0.digest)),
                ]
            } ?? [])
    }

    /// The record keys a binding adds (the last two only with `tpm_pcrs=`).
    static let keys = [
        "tpm-parent", "tpm-index", "tpm-index-name", "tpm-sealed-public", "tpm-sealed-private", "tpm-pcrs",
        "tpm-pcr-digest",
    ]

    /// Reads the binding's lines: an index in `handles`, a SHA-256 Name, and a sealed object
    /// that unmarshals whole.
    init(_ text: RecordText) throws {
        let handle = try text.hex("tpm-index", count: 4)
        index = PinCounter.number(handle[...])
        guard Self.handles.contains(index) else {
            throw SecureRoomError.corruptRecord(path: text.path, reason: "tpm-index outside SecureRoom's handles")
        }
        indexName = try text.hex("tpm-index-name", count: 34)
        guard indexName.starts(with: [0x00, 0x0b]) else {
            throw SecureRoomError.corruptRecord(path: text.path, reason: "tpm-index-name is not a SHA-256 Name")
        }
        sealed = try ObjectBlob(text, public: "tpm-sealed-public", private: "tpm-sealed-private")
        switch (text.fields["tpm-pcrs"]?.first, text.fields["tpm-pcr-digest"] != nil) {
        case (nil, false): pcrs = nil
        case (let list?, true):
            guard let parsed = PCRPolicy.parseList(list), !parsed.isEmpty else {
                throw SecureRoomError.corruptRecord(path: text.path, reason: "malformed tpm-pcrs")
            }
            pcrs = PCRPolicy(pcrs: parsed, digest: try text.hex("tpm-pcr-digest", count: 32))
        default:
            throw SecureRoomError.corruptRecord(path: text.path, reason: "tpm-pcrs and tpm-pcr-digest come together")
        }
    }
}

extension TPMConnection {
    /// The indices at SecureRoom's handles (`PinIndexBinding.handles`) that `named`
    /// (`StateStore.pinIndicesNamed`) does not hold: replaced or removed PINs' counters.
    public func unnamedPinIndices(_ named: Set<UInt32>) throws -> [UInt32] {
        try nvIndices(in: PinIndexBinding.handles).filter { !named.contains($0) }
    }
}
