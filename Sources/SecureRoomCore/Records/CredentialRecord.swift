// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// One user's PIN credential (docs/FORMAT.md §3): argon2id parameters, salt and the
/// verifier derived from the argon2 output. Holds nothing from which the PIN can be
/// recovered without the pepper, and, when bound to a TPM (versions 2 and 3), nothing
/// without that TPM either.
public struct CredentialRecord: Equatable, Sendable {
    /// The first line of a record not bound to a TPM.
    static let header = "SECUREROOM-CREDENTIAL/1"
    /// The first line of a record bound to the TPM under PolicyAuthValue (read, not written).
    static let authValueHeader = "SECUREROOM-CREDENTIAL/2"
    /// The first line of a record bound to its own counter in the TPM.
    static let pinIndexHeader = "SECUREROOM-CREDENTIAL/3"
    /// Largest record file accepted.
    static let maximumSize = 4096

    /// The user this record belongs to (also bound into the argon2 associated data).
    public var user: UserName
    /// argon2id cost parameters.
    public var parameters: KDFParameters
    /// Random per-record salt (16 bytes).
    public var salt: [UInt8]
    /// HKDF-SHA256(master, info "secureroom/1 verifier"), 32 bytes.
    public var verifier: [UInt8]
    /// Number of digits of the PIN.
    public var digits: Int
    /// When the PIN was set (Unix seconds).
    public var created: Int64
    /// The vault's data key wrapped under this PIN's KEK (`VaultKey`), or nil if the
    /// user has not set up a vault (or it was wiped after too many failures).
    public var vaultKey: [UInt8]?
    /// When `wipe_after` erased the vault key, and after how many failures; kept until the
    /// user has been told at a successful login (or a new PIN is set).
    public var vaultErased: VaultErasure?
    /// When an administrator made this PIN one that must be changed at its next use
    /// (`secureroom set --expire`, `secureroom expire`; Unix seconds), nil otherwise.
    public var mustChange: Int64?
    /// The TPM objects of a bound PIN (docs/FORMAT.md §2.1), nil for a PIN checked with the
    /// pepper alone.
    public var binding: TPMBinding?

    /// A `wipe_after` erasure of the PIN-wrapped vault key.
    public struct VaultErasure: Equatable, Sendable {
        /// When (Unix seconds).
        public var at: Int64
        /// Consecutive failures counted at that moment.
        public var failures: Int
    }

    /// Creates a record from its fields.
    public init(
        user: UserName, parameters: KDFParameters, salt: [UInt8], verifier: [UInt8],
        digits: Int, created: Int64, vaultKey: [UInt8]? = nil, binding: TPMBinding? = nil
    ) {
        self.binding = binding
        self.user = user
        self.parameters = parameters
        self.salt = salt
        self.verifier = verifier
        self.digits = digits
        self.created = created
        self.vaultKey = vaultKey
    }

    /// Whether `other` holds the same PIN: same salt, verifier and binding (the vault key
    /// may differ).
    public func isSamePIN(as other: CredentialRecord) -> Bool {
        user == other.user && salt == other.salt && verifier == other.verifier && binding == other.binding
    }

    /// Whether the PIN is bound to its own counter in the TPM (version 3).
    public var isBoundToItsCounter: Bool {
        if case .pinIndex? = binding { return true }
        return false
    }

    /// Parses a record file; throws `corruptRecord` for anything not exactly per FORMAT.md.
    public init(parsing bytes: [UInt8], path: String) throws {
        let header = [Self.header, Self.authValueHeader, Self.pinIndexHeader].first {
            bytes.starts(with: Array(($0 + "\n").utf8))
        }
        let tpmKeys: [String]
        switch header {
        case Self.authValueHeader: tpmKeys = AuthValueBinding.keys
        case Self.pinIndexHeader: tpmKeys = PinIndexBinding.keys
        default: tpmKeys = []
        }
        let text = try RecordText(
            parsing: bytes, header: header ?? Self.header,
            keys: Set(
                [
                    "user", "kdf", "memory-kib", "iterations", "lanes", "salt",
                    "verifier", "digits", "created", "vault-key", "vault-erased", "must-change",
                ] + tpmKeys), path: path)
        guard try text.required("kdf") == "argon2id-19" else {
            throw SecureRoomError.corruptRecord(path: path, reason: "unsupported kdf")
        }
        do {
            user = try UserName(String(try text.required("user")))
        } catch SecureRoomError.invalidUserName {
            throw SecureRoomError.corruptRecord(path: path, reason: "invalid user")
        }
        parameters = KDFParameters(
            memoryKiB: try text.number("memory-kib", in: KDFParameters.memoryRange),
            iterations: try text.number("iterations", in: KDFParameters.iterationRange),
            lanes: try text.number("lanes", in: KDFParameters.laneRange))
        do { try parameters.validate() } catch {
            throw SecureRoomError.corruptRecord(path: path, reason: "argon2 parameters out of range")
        }
        salt = try text.hex("salt", count: Argon2id.saltLength)
        verifier = try text.hex("verifier", count: PINKeys.verifierLength)
        digits = try text.number("digits", in: PINFormat.digitRange)
        created = try text.number("created", in: 0...Int64.max)
        vaultKey = try text.optionalHex("vault-key", count: VaultKey.wrappedLength)
        if let value = text.fields["vault-erased"]?.first {
            let parts = value.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 2, let at = RecordText.decimal(parts[0], as: Int64.self),
                let failures = RecordText.decimal(parts[1], as: Int.self), failures <= LockoutRecord.maximumSeenGuesses
            else { throw SecureRoomError.corruptRecord(path: path, reason: "malformed vault-erased") }
            vaultErased = VaultErasure(at: at, failures: failures)
        }
        mustChange = try text.fields["must-change"] == nil ? nil : text.number("must-change", in: 0...Int64.max)
        switch header {
        case Self.authValueHeader: binding = .authValue(try AuthValueBinding(text))
        case Self.pinIndexHeader: binding = .pinIndex(try PinIndexBinding(text))
        default: binding = nil
        }
    }

    /// The record file's bytes.
    public func serialized() -> [UInt8] {
        var fields: [(String, String)] = [
            ("user", user.rawValue),
            ("kdf", "argon2id-19"),
            ("memory-kib", String(parameters.memoryKiB)),
            ("iterations", String(parameters.iterations)),
            ("lanes", String(parameters.lanes)),
            ("salt", Hex.encode(salt)),
            ("verifier", Hex.encode(verifier)),
            ("digits", String(digits)),
            ("created", String(created)),
        ]
        if let vaultKey { fields.append(("vault-key", Hex.encode(vaultKey))) }
        if let vaultErased { fields.append(("vault-erased", "\(vaultErased.at) \(vaultErased.failures)")) }
        if let mustChange { fields.append(("must-change", String(mustChange))) }
        return RecordText.render(
            header: Self.header(of: binding), fields + (binding?.fields ?? []))
    }

    /// The header a record with `binding` is written with.
    private static func header(of binding: TPMBinding?) -> String {
        switch binding {
        case nil: return header
        case .authValue?: return authValueHeader
        case .pinIndex?: return pinIndexHeader
        }
    }
}
