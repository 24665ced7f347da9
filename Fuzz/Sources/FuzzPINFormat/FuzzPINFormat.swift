// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Fuzzes the PIN reader, `PINFormat.pin(from:)` and `pin(fromCString:)`: the answer to
/// the PIN prompt comes from whoever drives the PAM conversation. The first input byte
/// picks the configured length (4...12 digits); the rest is the answer.
///
/// Properties: a PIN is accepted iff the input up to its first NUL is exactly that many
/// ASCII digits; the accepted PIN is those bytes; the C-string reader agrees with the
/// buffer reader on every input of at most `maximumInputLength` bytes and refuses longer ones.
import FuzzSupport

@testable import SecureRoomCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPINFormat(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let (pick, input) = selector(fuzzBytes(data, size))
    let range = PINFormat.digitRange
    let format = try! PINFormat(digits: range.lowerBound + Int(pick) % range.count)
    let text = Array(input.prefix { $0 != 0 })
    let valid = text.count == format.digits && text.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    let pin = input.withUnsafeBytes { try? format.pin(from: $0) }
    require(
        (pin != nil) == valid,
        "pin(from:) \(pin == nil ? "refused" : "accepted") an input that is \(valid ? "" : "not ")a PIN")
    if let pin { require(pin.withUnsafeBytes { Array($0) } == text, "accepted PIN differs from the input") }
    let cString = (input + [0]).withUnsafeBytes { bytes in
        try? format.pin(fromCString: bytes.baseAddress!.assumingMemoryBound(to: CChar.self))
    }
    if text.count <= PINFormat.maximumInputLength {
        require((cString != nil) == valid, "pin(fromCString:) disagrees with pin(from:)")
        if let cString { require(cString.withUnsafeBytes { Array($0) } == text, "C-string PIN differs") }
    } else {
        require(cString == nil, "an overlong C string was accepted")
    }
    return 0
}
