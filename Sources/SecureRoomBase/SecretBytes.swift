// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomSystem
import Glibc

/// A fixed-size buffer for secret material (PINs, keys, the pepper).
///
/// The memory is allocated outside Swift's copy-on-write storage, in whole pages of its
/// own (mlock and munlock work on pages: unlocking a buffer that shared a page would unlock
/// its live neighbours too), locked in RAM where the process may (mlock), and wiped with
/// `explicit_bzero` when the last reference goes away.
public final class SecretBytes {
    private let storage: UnsafeMutableRawBufferPointer

    /// The size of a page, which every buffer is a multiple of.
    private static let pageSize = max(Int(sysconf(Int32(_SC_PAGESIZE))), 4096)

    /// A zero-filled buffer of `count` bytes.
    public init(count: Int) {
        let size = (max(count, 1) + Self.pageSize - 1) / Self.pageSize * Self.pageSize
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: Self.pageSize)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        _ = sr_mlock(storage.baseAddress, storage.count)
        self.count = count
    }

    /// A copy of `bytes`. The caller remains responsible for wiping its own copy.
    public convenience init(copying bytes: UnsafeRawBufferPointer) {
        self.init(count: bytes.count)
        if let source = bytes.baseAddress, let target = storage.baseAddress, bytes.count > 0 {
            target.copyMemory(from: source, byteCount: bytes.count)
        }
    }

    /// `count` bytes from the kernel's CSPRNG (getrandom).
    public static func random(count: Int) throws -> SecretBytes {
        let secret = SecretBytes(count: count)
        guard sr_getrandom(secret.storage.baseAddress, count) == count else {
            throw SecureRoomError.system(operation: "getrandom", path: "", errno: errno)
        }
        return secret
    }

    deinit {
        sr_explicit_bzero(storage.baseAddress, storage.count)
        _ = sr_munlock(storage.baseAddress, storage.count)
        storage.deallocate()
    }

    /// The number of secret bytes.
    public let count: Int

    /// Calls `body` with read access to the bytes. Do not let the pointer escape.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// Calls `body` with write access to the bytes. Do not let the pointer escape.
    public func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeMutableRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// Compares with `other` in time that depends only on the lengths.
    public func constantTimeEquals(_ other: SecretBytes) -> Bool {
        other.withUnsafeBytes { constantTimeEquals($0) }
    }

    /// Compares with `bytes` in time that depends only on the lengths.
    public func constantTimeEquals(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count == count else { return false }
        var difference: UInt8 = 0
        withUnsafeBytes { mine in
            for index in 0..<count { difference |= mine[index] ^ bytes[index] }
        }
        return difference == 0
    }
}
