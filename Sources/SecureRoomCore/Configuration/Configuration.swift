// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Every SecureRoom option, parsed once (pam_faillock's model): first the config file
/// (`/etc/security/secureroom.conf`, or `conf=`), then module arguments or CLI flags,
/// which win. The same keys work in both places (secureroom.conf(5) documents them).
public struct Configuration: Sendable {
    /// The default config file.
    public static let defaultConfigPath = "/etc/security/secureroom.conf"
    /// The default state directory.
    public static let defaultDirectory = "/var/lib/secureroom"

    /// What to do for a user without a PIN.
    public enum NoPINAction: String, Sendable, CaseIterable {
        /// Return PAM_IGNORE at once, so the stack falls through (to the password).
        case ignore
        /// Prompt, spend the same time as a real check, and fail.
        case fail
    }

    /// What to do for a transaction that comes from the network.
    public enum RemoteAction: String, Sendable, CaseIterable {
        /// PAM_IGNORE without prompting: the stack asks for the password (the default).
        case deny
        /// Check the PIN as for a local login.
        case allow
    }

    /// Whether new PINs are bound to the TPM (`tpm=`).
    public enum TPMUse: String, Sendable, CaseIterable {
        /// Never: the file pepper alone, as before TPM support.
        case off
        /// When a TPM answers at `tpm_tcti`; else as `off` (the default).
        case auto
        /// Always: setting a PIN fails without a TPM.
        case required
    }

    /// State directory (`dir=`).
    public var directory = Configuration.defaultDirectory
    /// Pepper file (`pepper=`); nil means `<directory>/pepper`.
    public var pepperPath: String?
    /// PIN length (`digits=`).
    public var format = PINFormat.fourDigits
    /// Lockout cap and schedule (`deny=`, `schedule=`).
    public var lockout = LockoutPolicy.defaults
    /// argon2 parameters for new records (`argon2_memory=` KiB, `argon2_time=`, `argon2_lanes=`).
    public var kdf = KDFParameters.defaults
    /// Accept argon2 costs below `KDFParameters.floor`, in the configuration and in records
    /// (`argon2_below_floor`): for test systems that run thousands of checks; such records
    /// are cheap to search from a copy of the state.
    public var allowsBelowFloor = false
    /// Apply the PIN to root (uid 0) too, lockout included (`even_deny_root`).
    public var evenDenyRoot = false
    /// No failure delay (`nodelay`).
    public var noDelay = false
    /// No messages through the conversation (`silent`).
    public var silent = false
    /// Extra syslog lines (`debug`).
    public var debug = false
    /// Users without a PIN (`nopin=ignore|fail`).
    public var noPIN = NoPINAction.ignore
    /// Take the PIN from PAM_AUTHTOK only (`use_first_pass`).
    public var useFirstPass = false
    /// Take the PIN from PAM_AUTHTOK if set, else prompt (`try_first_pass`).
    public var tryFirstPass = false
    /// One field for the PIN or the password (`pin_or_password`): a PIN-shaped answer is
    /// checked as the PIN, any other is handed to the next module as PAM_AUTHTOK.
    public var pinOrPassword = false
    /// Blocklist for new PINs (`blocklist=builtin|none|PATH`).
    public var blocklist = "builtin"
    /// The setuid helper run for callers without root (`helper=`).
    public var helperPath = HelperProtocol.defaultPath
    /// How long an unlocked vault key stays in the kernel keyring, in seconds (`vault_timeout=`).
    public var vaultTimeout: Int64 = 15 * 60
    /// Erase the PIN-wrapped vault key after this many consecutive failures (`wipe_after=`).
    public var wipeAfter: Int?
    /// Where open sessions are counted, so the last one to close locks the vault (`sessions=`).
    public var sessionDirectory = "/run/secureroom"
    /// When the PIN may stand in for the password (`password_first=off|boot|DURATION`).
    public var passwordFirst = PasswordFirst.off

    /// `password_first=`: the PIN is accepted only after the user's password was, on this
    /// machine since boot (`boot`), and within `seconds` of that password (`within`);
    /// `off` accepts it at any time (docs/SECURITY.md §1.3).
    public enum PasswordFirst: Equatable, Sendable {
        case off
        case boot
        case within(seconds: Int64)
    }

    /// Transactions from the network (`remote=deny|allow`).
    public var remote = RemoteAction.deny
    /// Services whose transactions always count as remote (`remote_services=`, comma-separated).
    public var remoteServices: Set<String> = ["sshd"]
    /// The services that may take a PIN (`local_services=`, comma-separated, or `*`: nil,
    /// every service): any other is ignored before a prompt. By default those the project
    /// tests as local (`testedLocalServices`).
    public var localServices: Set<String>? = Configuration.testedLocalServices
    /// The services the project's tests drive as local ones, `local_services=`'s default:
    /// the console and terminal logins, privilege changes, polkit, the vault's own unlock,
    /// and the lock screens and login screens tested (docs/DESIGN.md §7).
    public static let testedLocalServices: Set<String> = [
        "login", "su", "su-l", "sudo", "sudo-i", "polkit-1", "secureroom-vault", "i3lock", "xsecurelock",
        "xscreensaver", "lightdm", "gdm-password", "kde", "swaylock",
    ]
    /// This `auth` line runs after the primary (password) authentication succeeded: clear
    /// the user's PIN lockout (`authsucc`, pam_faillock's pattern); it always returns
    /// PAM_IGNORE, so it can never let anyone in.
    public var authSucceeded = false

    /// Offering users without a PIN to create one at login (`enrol=`).
    public enum EnrolOffer: String, Sendable, CaseIterable {
        /// Never (the default).
        case off
        /// Ask; after a "no", not again before `enrol_snooze` has passed.
        case offer
        /// Ask at every login until the user has a PIN.
        case require
    }

    /// On a line after the primary authentication: offer a user without a PIN to create
    /// one (`enrol=off|offer|require`, docs/SECURITY.md §6). Always PAM_IGNORE.
    public var enrol = EnrolOffer.off
    /// After a declined offer, how long before the user is asked again (`enrol_snooze=`, seconds).
    public var enrolSnooze: Int64 = 7 * 86_400
    /// Only members of this group are offered enrolment or may enrol themselves (`enrol_group=`).
    public var enrolGroup: String?
    /// A PIN created by its user also gets a vault key and a recovery key (`enrol_vault`).
    public var enrolVault = false
    /// On an `account` line: act only on a PIN that must be changed and was just used in
    /// this transaction; PAM_IGNORE otherwise, with nothing read (`only_expired`).
    public var onlyExpired = false

    /// Bind new PINs to the TPM (`tpm=off|auto|required`); bound PINs need it whatever this says.
    public var tpm = TPMUse.auto
    /// How to reach the TPM (`tpm_tcti=`): a tpm2-tss TCTI string.
    public var tpmTCTI = "device:/dev/tpmrm0"
    /// The PCRs new bindings are sealed to (`tpm_pcrs=`, `PCRPolicy`); none by default.
    public var tpmPCRs: [Int] = []

    /// Keys that were not recognised (reported, not fatal).
    public private(set) var unknownKeys: [String] = []

    /// The defaults.
    public init() {}

    /// The pepper path in effect.
    public var effectivePepperPath: String { pepperPath ?? directory + "/pepper" }

    /// The effective configuration: the config file (if it exists), then `arguments`.
    ///
    /// `conf=PATH` among the arguments names another config file. A missing default file
    /// is fine; a missing named file, or a bad value anywhere, is an error.
    public static func load(arguments: [String], reader: (String) throws -> [UInt8]?) throws -> Configuration {
        var configuration = Configuration()
        let named = arguments.last(where: { $0.hasPrefix("conf=") }).map { String($0.dropFirst(5)) }
        let path = named ?? defaultConfigPath
        if let bytes = try reader(path) {
            try configuration.apply(fileText: bytes, path: path)
        } else if named != nil {
            throw SecureRoomError.invalidConfiguration("config file \(path) does not exist")
        }
        for argument in arguments where !argument.hasPrefix("conf=") {
            try configuration.apply(argument)
        }
        try configuration.validate()
        return configuration
    }

    /// Applies a config file: `key = value` or `key` per line, `#` comments.
    ///
    /// Lines are split on the byte `\n` before decoding: split as a `String`, a CRLF file
    /// would be one line (`"\r\n"` is a single `Character`), swallowing every option.
    public mutating func apply(fileText bytes: [UInt8], path: String) throws {
        for (number, rawBytes) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .enumerated()
        {
            let rawLine = Substring(String(decoding: rawBytes, as: UTF8.self))
            let line = (rawLine.firstIndex(of: "#").map { rawLine[..<$0] } ?? rawLine)
                .trimmingSpaces()
            if line.isEmpty { continue }
            let option: String
            if let equals = line.firstIndex(of: "=") {
                option = line[..<equals].trimmingSpaces() + "=" + line[line.index(after: equals)...].trimmingSpaces()
            } else {
                option = String(line)
            }
            do { try apply(option) } catch let SecureRoomError.invalidConfiguration(message) {
                throw SecureRoomError.invalidConfiguration("\(path):\(number + 1): \(message)")
            }
        }
    }

    /// Applies one `key` or `key=value` option.
    public mutating func apply(_ option: String) throws {
        let key: Substring
        let value: Substring?
        if let equals = option.firstIndex(of: "=") {
            key = option[..<equals]
            value = option[option.index(after: equals)...]
        } else {
            key = Substring(option)
            value = nil
        }
        func required() throws -> String {
            guard let value, !value.isEmpty || key == "schedule" else {
                throw SecureRoomError.invalidConfiguration("\(key) needs a value")
            }
            return String(value)
        }
        func flag() throws -> Bool {
            guard value == nil else { throw SecureRoomError.invalidConfiguration("\(key) takes no value") }
            return true
        }
        func number<T: FixedWidthInteger>(_ range: ClosedRange<T>) throws -> T {
            let text = try required()
            guard let parsed = RecordText.decimal(Substring(text), as: T.self), range.contains(parsed) else {
                throw SecureRoomError.invalidConfiguration(
                    "\(key)=\(UserName.quoted(text)) must be a number in \(range)")
            }
            return parsed
        }
        /// A duration (`N`, `Ns`, `Nm`, `Nh`, `Nd`) in seconds within `range`, described as `words`.
        func duration(_ range: ClosedRange<Int64>, _ words: String) throws -> Int64 {
            let text = try required()
            guard let seconds = LockoutPolicy.parseDuration(Substring(text)), range.contains(seconds) else {
                throw SecureRoomError.invalidConfiguration(
                    "\(key)=\(UserName.quoted(text)) must be a duration from \(words)")
            }
            return seconds
        }
        /// One of the option's words ("nopin must be ignore or fail").
        func choice<T: RawRepresentable & CaseIterable>() throws -> T where T.RawValue == String {
            guard let chosen = T(rawValue: try required()) else {
                let words = T.allCases.map(\.rawValue)
                let list =
                    words.count > 1
                    ? words.dropLast().joined(separator: ", ") + " or " + (words.last ?? "") : words.joined()
                throw SecureRoomError.invalidConfiguration("\(key) must be \(list)")
            }
            return chosen
        }
        func path() throws -> String {
            let text = try required()
            guard text.hasPrefix("/") else {
                throw SecureRoomError.invalidConfiguration("\(key) must be an absolute path")
            }
            return text
        }
        switch key {
        case "dir": directory = try path()
        case "pepper": pepperPath = try path()
        case "digits": format = try PINFormat(digits: try number(PINFormat.digitRange))
        case "deny": lockout = try LockoutPolicy(deny: try number(LockoutPolicy.denyRange), schedule: lockout.schedule)
        case "schedule":
            lockout = try LockoutPolicy(deny: lockout.deny, schedule: try LockoutPolicy.parseSchedule(try required()))
        case "argon2_memory": kdf.memoryKiB = try number(KDFParameters.memoryRange)
        case "argon2_time": kdf.iterations = try number(KDFParameters.iterationRange)
        case "argon2_lanes": kdf.lanes = try number(KDFParameters.laneRange)
        case "argon2_below_floor": allowsBelowFloor = try flag()
        case "even_deny_root": evenDenyRoot = try flag()
        case "nodelay": noDelay = try flag()
        case "silent": silent = try flag()
        case "debug": debug = try flag()
        case "use_first_pass": useFirstPass = try flag()
        case "try_first_pass": tryFirstPass = try flag()
        case "pin_or_password": pinOrPassword = try flag()
        case "nopin": noPIN = try choice()
        case "blocklist": blocklist = try required()
        case "helper": helperPath = try path()
        case "vault_timeout": vaultTimeout = try duration(1...7 * 86_400, "1s to 7d")
        case "wipe_after": wipeAfter = try number(1...LockoutRecord.maximumSeenGuesses)
        case "sessions": sessionDirectory = try path()
        case "remote": remote = try choice()
        case "password_first":
            let word = try required()
            passwordFirst =
                word == "off"
                ? .off
                : word == "boot"
                    ? .boot : .within(seconds: try duration(1...365 * 86_400, "1s to 365d, or off or boot"))
        case "local_services":
            guard let value, !value.trimmingSpaces().isEmpty else {
                throw SecureRoomError.invalidConfiguration("local_services needs a list of services, or *")
            }
            let names = Set(value.split(separator: ",").map { $0.trimmingSpaces() }.filter { !$0.isEmpty })
            localServices = names == ["*"] ? nil : names
        case "remote_services":
            guard let value else {
                throw SecureRoomError.invalidConfiguration("remote_services needs a value (it may be empty)")
            }
            remoteServices = Set(value.split(separator: ",").map { $0.trimmingSpaces() }.filter { !$0.isEmpty })
        case "authsucc": authSucceeded = try flag()
        case "enrol": enrol = try choice()
        case "enrol_snooze": enrolSnooze = try duration(0...365 * 86_400, "0s to 365d")
        case "enrol_group":
            let text = try required()
            guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: ":") }) else {
                throw SecureRoomError.invalidConfiguration("enrol_group=\(UserName.quoted(text)) is not a group name")
            }
            enrolGroup = text
        case "enrol_vault": enrolVault = try flag()
        case "only_expired": onlyExpired = try flag()
        case "tpm": tpm = try choice()
        case "tpm_tcti": tpmTCTI = try required()
        case "tpm_pcrs":
            guard let value, let pcrs = PCRPolicy.parseList(Substring(value.filter { $0 != " " && $0 != "\t" }))
            else {
                throw SecureRoomError.invalidConfiguration(
                    "tpm_pcrs must list at most \(PCRPolicy.maximumCount) PCRs from 0 to 23, ascending and "
                        + "comma-separated (or be empty)")
            }
            tpmPCRs = pcrs
        default: unknownKeys.append(String(key))
        }
    }

    /// Whether a record or configuration at `parameters` is acceptable: at the argon2 floor
    /// (`KDFParameters.meetsFloor`), or below it with `argon2_below_floor`.
    public func acceptsCost(_ parameters: KDFParameters) -> Bool { parameters.meetsFloor || allowsBelowFloor }

    /// Whether a PIN of `digits` digits can be typed here (`digits=`); one of another
    /// length is refused before the prompt.
    public func acceptsLength(_ digits: Int) -> Bool { digits == format.digits }

    /// Checks combinations that single options cannot: argon2 memory against lanes, and
    /// the cost against the floor unless `argon2_below_floor` allows less.
    func validate() throws {
        do { try kdf.validate() } catch let SecureRoomError.kdfFailure(message) {
            throw SecureRoomError.invalidConfiguration(message)
        }
        guard acceptsCost(kdf) else {
            throw SecureRoomError.invalidConfiguration(
                "argon2_memory=\(kdf.memoryKiB) and argon2_time=\(kdf.iterations) are below the floor of "
                    + "\(KDFParameters.floorDescription), OWASP's minimum: raise them "
                    + "(argon2_below_floor allows less, for test systems only)")
        }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    public func trimmingSpaces() -> String {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" || first == "\r" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" || last == "\r" { slice = slice.dropLast() }
        return String(slice)
    }
}
