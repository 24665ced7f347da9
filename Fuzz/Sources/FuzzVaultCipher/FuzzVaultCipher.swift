/// Fuzzes the vault blob opener, `VaultCipher.open` (docs/FORMAT.md §9), with the fixed
/// DEK and vault id of the §9.1 vector. The first input byte picks the mode:
///
/// - even: the rest is a sealed blob for the row `github`. Nothing but a blob sealed
///   under this vault's key authenticates, so one that opens must be the vector's.
/// - odd: the rest is a *plaintext*, sealed here under the vault's real seal key (derived
///   as FORMAT.md §9 says) so the fuzzer reaches the layout parser behind the AEAD. The
///   row's title MAC is that of the title the plaintext claims. Properties: it opens iff
///   the layout is valid (version 1, 21-byte header, title length within the blob, UTF-8
///   title); what opens re-serializes to exactly the plaintext; `seal` then `open` returns
///   the same secret.
import FuzzSupport
import SecureRoomCore
@testable import SecureRoomVault

private let dataKey = secret(Array(UInt8(0x40)...UInt8(0x5f)))
private let vaultID = Array(UInt8(0xa0)...UInt8(0xaf))
private let cipher = VaultCipher(dataKey: dataKey, vaultID: vaultID)
private let sealKey = SealedKeys.derive(dataKey, salt: vaultID, info: "secureroom/1 vault-seal")
private let vectorBlob = hexConstant(
    "18191a1b1c1d1e1f20212223b64beb38a25eda18363069e7fdef91bc043b520fb711b0a2ad4105c16225b225c3ea91f69aea5ddeaafa4c19f978711c83a6")
private let headerLength = 21

/// A big-endian unsigned integer of `count` bytes at `start`.
private func bigEndian(_ bytes: [UInt8], _ start: Int, _ count: Int) -> UInt64 {
    bytes[start..<start + count].reduce(0) { $0 << 8 | UInt64($1) }
}

/// The plaintext layout of a secret (FORMAT.md §9), written independently of VaultCipher.
private func layout(_ secret: VaultSecret) -> [UInt8] {
    func be(_ value: UInt64, _ count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
    let title = Array(secret.title.utf8)
    return [1] + be(UInt64(bitPattern: secret.created), 8) + be(UInt64(bitPattern: secret.modified), 8)
        + be(UInt64(title.count), 4) + title + secret.value.withUnsafeBytes { Array($0) }
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
    // The title the plaintext claims, when its layout has one.
    var claimed: [UInt8]?
    if input.count >= headerLength, input[0] == 1 {
        let length = bigEndian(input, 17, 4)
        if length <= UInt64(input.count - headerLength) {
            claimed = Array(input[headerLength..<headerLength + Int(length)])
        }
    }
    let validTitle = claimed.flatMap { String(validating: $0, as: UTF8.self) }
    let titleMAC = cipher.titleMAC(validTitle ?? "")
    let associatedData = Array("secureroom/1 vault-secret".utf8) + vaultID + titleMAC
    guard let box = try? input.withUnsafeBytes({ try SealedKeys.seal($0, key: sealKey, authenticating: associatedData) }) else {
        fatalError("fuzz property violated: sealing failed")
    }
    let secret = try? cipher.open(box, titleMAC: titleMAC)
    require((secret != nil) == (validTitle != nil), "open \(secret == nil ? "refused" : "accepted") a plaintext whose layout is \(validTitle == nil ? "invalid" : "valid")")
    guard let secret else { return 0 }
    require(secret.title == validTitle, "opened title differs from the plaintext's")
    require(layout(secret) == input, "opened secret does not re-serialize to its plaintext")
    guard let resealed = try? cipher.seal(secret, titleMAC: titleMAC),
          let reopened = try? cipher.open(resealed, titleMAC: titleMAC) else {
        fatalError("fuzz property violated: a secret does not seal and reopen")
    }
    require(layout(reopened) == input, "seal then open changes the secret")
    return 0
}
