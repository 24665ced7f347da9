// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Fuzzes the KeePassXC XML export reader, `KeePassXCXML` over `XMLReader`, with small
/// limits (below), so that the seeds in Corpus/FuzzKeePassXCXML cross each of them.
/// Properties: what the small limits accept, the defaults accept too, with the same
/// entries (a limit only ever refuses); no more entries than the limit; the batch has one
/// secret or one unreadable entry per entry.
import FuzzSupport
import SecureRoomCore

@testable import SecureRoomImport

/// Small limits: each seed that crosses one is a few hundred bytes.
let small: ImportLimits = {
    var limits = ImportLimits()
    limits.fileBytes = 4096
    limits.depth = 8
    limits.elements = 64
    limits.attributesPerElement = 4
    limits.nameBytes = 16
    limits.attributeBytes = 32
    limits.textBytes = 64
    limits.entries = 4
    return limits
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    guard let export = try? KeePassXCXML(bytes, limits: small) else { return 0 }
    require(export.entries.count <= small.entries, "more entries than the limit")
    let unlimited = try? KeePassXCXML(bytes)
    require(unlimited?.entries == export.entries, "the default limits read it otherwise")
    let batch = export.batch()
    require(batch.secrets.count + batch.unreadable.count == export.entries.count, "one outcome per entry")
    return 0
}
