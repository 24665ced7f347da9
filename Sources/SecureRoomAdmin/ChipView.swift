// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import SecureRoomCore

/// What `status` says of a PIN bound to a TPM: whether the chip that answers now is the
/// one it was bound to (its storage key's name, read once per run, on the first bound PIN).
struct ChipView {
    private let chip: TPMChip
    private var name: Result<[UInt8], any Error>?

    init(_ configuration: Configuration) { chip = TPMChip(configuration) }

    /// "bound" (the chip that answers holds it), "bound-unreachable" (no chip answers) or
    /// "bound-other-chip" (cleared or replaced: the PIN cannot be used until it is set again).
    mutating func state(of binding: TPMBinding) -> String {
        if name == nil { name = Result { try chip.withConnection { try $0.storageKeyName() } } }
        switch name {
        case .success(let current)?: return current == binding.sealed.parentName ? "bound" : "bound-other-chip"
        default: return "bound-unreachable"
        }
    }
}
