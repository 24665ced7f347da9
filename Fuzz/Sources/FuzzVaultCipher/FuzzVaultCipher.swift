// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Fuzzes the vault blob opener, `VaultCipher.open` (docs/FORMAT.md §9), with the fixed
/// DEK and vault id of the §9.1 vector. The first input byte picks the mode:
///
/// - even: the rest is a sealed blob for the row `github`. Nothing but a blob sealed
///   under this vault's key authenticates, so one that opens must be the vector's.
/// - odd: the rest is a *plaintext*, sealed here under the vault's real seal key (derived
///   as FORMAT.md §9 says) so the fuzzer reaches the layout parser behind the AEAD. The
///   row's title MAC is that of the title the plaintext claims. Properties: it opens iff
///   the layout is valid by the reference parser below (layout 1, or layout 2 with its
///   label, content type and at most 64 attributes, names strictly ascending and distinct
///   as strings (canonical equivalence), every field
///   within the blob and UTF-8); what opens re-serializes in its own layout to exactly the
///   plaintext; `seal` then `open` returns the same secret.
import FuzzSupport
import SecureRoomCore

@testable import SecureRoomVault

private let dataKey = secret(Array(UInt8(0x40)...UInt8(0x5f)))
private let vaultID = Array(UInt8(0xa0)...UInt8(0xaf))
private let cipher = VaultCipher(dataKey: dataKey, vaultID: vaultID)
private let sealKey = SealedKeys.derive(dataKey, salt: vaultID, info: "secureroom/1 vault-seal")
private let vectorBlob = hexConstant(
    "18191a1b1c1d1e1f20212223b64beb38a25eda18363069e7fdef91bc043b520"
        + "fb711b0a2ad4105c16225b225c3ea91f69aea5ddeaafa4c19f978711c83a6"
)

/// What the reference parser reads: the layout byte and the title, or nil for a
/// plaintext that must not open. Written independently of VaultCipher.
private func referenceParse(_ bytes: [UInt8]) -> (layout: UInt8, title: String)? {
    var index = 0
    func integer(_ count: Int) -> UInt64? {
        guard bytes.count - index >= count else { return nil }
        defer { index += count }
        return bytes[index..<index + count].reduce(0) { $0 << 8 | UInt64($1) }
    }
    func field() -> [UInt8]? {
        guard let length = integer(4), length <= UInt64(bytes.count - index),
            String(validating: bytes[index..<index + Int(length)], as: UTF8.self) != nil
        else { return nil }
        defer { index += Int(length) }
        return Array(bytes[index..<index + Int(length)])
    }
    guard let layout = integer(1), layout == 1 || layout == 2, integer(8) != nil, integer(8) != nil,
        let title = field()
    else { return nil }
    if layout == 2 {
        guard field() != nil, field() != nil, let count = integer(4), count <= 64 else { return nil }
        var previous: [UInt8]?
        var names = Set<String>()
        for _ in 0..<count {
            guard let name = field(), previous.map({ $0.lexicographicallyPrecedes(name) }) ?? true, field() != nil,
                names.insert(String(decoding: name, as: UTF8.self)).inserted
            else { return nil }
            previous = name
        }
    }
    return (UInt8(layout), String(decoding: title, as: UTF8.self))
}

/// The plaintext of `secret` in `layout` (FORMAT.md §9), written independently of VaultCipher.
private func serialize(_ secret: VaultSecret, layout: UInt8) -> [UInt8] {
    func be(_ value: UInt64, _ count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
    func field(_ text: String) -> [UInt8] { be(UInt64(text.utf8.count), 4) + Array(text.utf8) }
    var out =
        [layout] + be(UInt64(bitPattern: secret.created), 8) + be(UInt64(bitPattern: secret.modified), 8)
        + field(secret.title)
    if layout == 2 {
        out += field(secret.label) + field(secret.contentType) + be(UInt64(secret.attributes.count), 4)
        for name in secret.attributes.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
            out += field(name) + field(secret.attributes[name] ?? "")
        }
    }
    return out + secret.value.withUnsafeBytes { Array($0) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVaultCipher(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let (pick, input) = selector(fuzzBytes(data, size))
    if pick & 1 == 0 {
        if let secret = try? cipher.open(input, titleMAC: cipher.titleMAC("github")) {
            require(input == vectorBlob && secret.title == "github", "a blob not sealed by this vault opened")
        }
        return 0
    }
    let reference = referenceParse(input)
    let titleMAC = cipher.titleMAC(reference?.title ?? "")
    let associatedData = Array("secureroom/1 vault-secret".utf8) + vaultID + titleMAC
    guard
        let box = try? input.withUnsafeBytes({ try SealedKeys.seal($0, key: sealKey, authenticating: associatedData) })
    else {
        fatalError("fuzz property violated: sealing failed")
    }
    let secret = try? cipher.open(box, titleMAC: titleMAC)
    require(
        (secret != nil) == (reference != nil),
        "open \(secret == nil ? "refused" : "accepted") a plaintext whose layout is "
            + "\(reference == nil ? "invalid" : "valid")"
    )
    guard let secret, let reference else { return 0 }
    require(secret.title == reference.title, "opened title differs from the plaintext's")
    require(
        serialize(secret, layout: reference.layout) == input, "opened secret does not re-serialize to its plaintext")
    guard let resealed = try? cipher.seal(secret, titleMAC: titleMAC),
        let reopened = try? cipher.open(resealed, titleMAC: titleMAC)
    else {
        fatalError("fuzz property violated: a secret does not seal and reopen")
    }
    require(serialize(reopened, layout: 2) == serialize(secret, layout: 2), "seal then open changes the secret")
    return 0
}
