// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Fuzzes the KeePassXC CSV export reader, `KeePassXCExport`, with small limits (below),
/// so that the seeds in Corpus/FuzzKeePassXCCSV cross each of them. Properties: what the
/// small limits accept, the defaults accept too, with the same rows (a limit only ever
/// refuses); no more rows than the limit, none wider than the header; the batch has one
/// secret or one unreadable entry per row.
import FuzzSupport
import SecureRoomCore

@testable import SecureRoomImport

/// Small limits: each seed that crosses one is a few hundred bytes.
let small: ImportLimits = {
    var limits = ImportLimits()
    limits.fileBytes = 4096
    limits.entries = 4
    limits.columns = 8
    limits.fieldBytes = 32
    limits.lineBytes = 128
    return limits
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    guard let export = try? KeePassXCExport(bytes, limits: small) else { return 0 }
    require(export.rows.count <= small.entries, "more rows than the limit")
    require(export.rows.allSatisfy { ($0?.count ?? 0) <= small.columns }, "a row wider than the limit")
    let unlimited = try? KeePassXCExport(bytes)
    require(unlimited?.rows == export.rows, "the default limits read it otherwise")
    let batch = export.batch()
    require(batch.secrets.count + batch.unreadable.count == export.rows.count, "one outcome per row")
    return 0
}
