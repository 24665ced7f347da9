// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CTSS2
import Glibc
import SecureRoomBase

/// Conversions between Swift byte arrays and the fixed-size `TPM2B_*`
/// structures (`UINT16 size; BYTE buffer[N]`, imported as a tuple), plus
/// best-effort wiping of secret-bearing C structures.
enum TPM2BBytes {
    /// Copies `bytes` into `value[keyPath: buffer]` and sets the size field.
    static func fill<T, Buffer>(
        _ value: inout T,
        size: WritableKeyPath<T, UInt16>,
        buffer: WritableKeyPath<T, Buffer>,
        from bytes: [UInt8],
        what: String
    ) throws {
        let fits: Bool = withUnsafeMutableBytes(of: &value[keyPath: buffer]) { raw in
            guard bytes.count <= raw.count else { return false }
            raw.copyBytes(from: bytes)
            return true
        }
        guard fits, let n = UInt16(exactly: bytes.count) else {
            throw TPMError.invalidArgument("\(what): \(bytes.count) bytes do not fit")
        }
        value[keyPath: size] = n
    }

    /// Reads `size` bytes out of the buffer (clamped to the buffer's capacity).
    static func read<T, Buffer>(
        _ value: T,
        size: KeyPath<T, UInt16>,
        buffer: KeyPath<T, Buffer>
    ) -> [UInt8] {
        let n = Int(value[keyPath: size])
        return withUnsafeBytes(of: value[keyPath: buffer]) { raw in
            Array(raw.prefix(n))
        }
    }

    /// Overwrites a value's memory with zeros using `explicit_bzero`, which
    /// the compiler may not elide.
    static func wipe<T>(_ value: inout T) {
        withUnsafeMutableBytes(of: &value) { raw in
            if let base = raw.baseAddress { explicit_bzero(base, raw.count) }
        }
    }

    /// Wipes and frees an ESAPI-allocated output structure.
    static func wipeAndFree<T>(_ pointer: UnsafeMutablePointer<T>?) {
        guard let pointer else { return }
        explicit_bzero(pointer, MemoryLayout<T>.size)
        sr_Esys_Free(pointer)
    }

    /// Frees an ESAPI-allocated output structure (non-secret).
    static func free<T>(_ pointer: UnsafeMutablePointer<T>?) {
        guard let pointer else { return }
        sr_Esys_Free(pointer)
    }

    /// Wipes a Swift byte array in place (best effort: copies made earlier
    /// by the runtime are not reachable from here).
    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { raw in
            if let base = raw.baseAddress { explicit_bzero(base, raw.count) }
        }
    }
}

extension TPM2B_DIGEST {
    init(checking bytes: [UInt8], what: String) throws {
        self.init()
        try TPM2BBytes.fill(&self, size: \.size, buffer: \.buffer, from: bytes, what: what)
    }

    var bytes: [UInt8] { TPM2BBytes.read(self, size: \.size, buffer: \.buffer) }
}

extension TPM2B_SENSITIVE_DATA {
    var bytes: [UInt8] { TPM2BBytes.read(self, size: \.size, buffer: \.buffer) }
}

extension TPM2B_MAX_BUFFER {
    init(checking bytes: [UInt8], what: String) throws {
        self.init()
        try TPM2BBytes.fill(&self, size: \.size, buffer: \.buffer, from: bytes, what: what)
    }
}

extension TPM2B_NAME {
    var bytes: [UInt8] { TPM2BBytes.read(self, size: \.size, buffer: \.name) }
}
