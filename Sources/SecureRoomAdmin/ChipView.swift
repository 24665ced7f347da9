// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import SecureRoomCore

/// What `status` says of a PIN bound to a TPM: whether the chip that answers now is the
/// one it was bound to (its storage key's name, read once per run, on the first bound PIN),
/// and for a PIN bound to its own counter, the counter (read through its policy's read
/// branch, which counts nothing).
struct ChipView {
    private let chip: TPMChip
    private var name: Result<[UInt8], any Error>?

    init(_ configuration: Configuration) { chip = TPMChip(configuration) }

    /// What the chip says of one binding.
    struct State {
        /// "bound" (the chip that answers holds it and takes part in every check),
        /// "bound-spent" (its counter reached its limit: the chip refuses this PIN),
        /// "bound-other-boot" (sealed with `tpm_pcrs=` to a boot whose PCRs differ from now),
        /// "bound-shared" (bound under the chip's shared counter, version 2: bound to its
        /// own at its next right PIN), "bound-unreachable" (no chip answers) or
        /// "bound-other-chip" (cleared or replaced, or the PIN's counter is gone: the PIN
        /// cannot be used until it is set again).
        let name: String
        /// The PIN's wrong guesses on its counter and the counter's limit (version 3, and
        /// when the chip answers).
        let counter: (failures: Int, limit: Int)?
    }

    mutating func state(of binding: TPMBinding) -> State {
        if name == nil { name = Result { try chip.withConnection { try $0.storageKeyName() } } }
        guard case .success(let current)? = name else { return State(name: "bound-unreachable", counter: nil) }
        guard current == binding.sealed.parentName else { return State(name: "bound-other-chip", counter: nil) }
        guard case .pinIndex(let counted) = binding else { return State(name: "bound-shared", counter: nil) }
        do {
            let read = try counted.standing(on: chip)
            let name = !read.bootMatches ? "bound-other-boot" : read.count >= read.limit ? "bound-spent" : "bound"
            return State(name: name, counter: (Int(read.count), Int(read.limit)))
        } catch SecureRoomError.tpm(.otherChip) {
            return State(name: "bound-other-chip", counter: nil)
        } catch {
            return State(name: "bound-unreachable", counter: nil)
        }
    }
}
