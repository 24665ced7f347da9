// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomPAM
import Glibc
import SecureRoomCore

/// One call into the module: the handle, the flags, the options parsed once, and the
/// authority over the records. `run` turns whatever happens inside into a PAM code, a
/// syslog line and what the user is told.
struct ModuleCall {
    /// The libpam handle.
    let pam: PAMHandle
    /// The flags libpam passed (PAM_SILENT, PAM_PRELIM_CHECK, ...).
    let flags: Int32
    /// Options: the config file, then the module arguments.
    let configuration: Configuration
    /// The module's one door to the records: the state itself as root, secureroom-helper
    /// otherwise. Built here and only here, the one place that decides between the two
    /// (docs/DESIGN.md §6); no other file of the module can reach the state.
    let authority: any PINAuthority

    private init(pam: PAMHandle, flags: Int32, configuration: Configuration) {
        self.pam = pam
        self.flags = flags
        self.configuration = configuration
        let store = LocalPINAuthority.isAvailable ? StateStore(configuration: configuration) : nil
        authority = pinAuthority(reachable: store, configuration: configuration)
    }

    /// Parses the options and runs `body`, mapping every error in one place.
    /// Never traps: the host is sudo, sshd or login.
    /// `group` is the management group, for log lines ("auth", "session", ...).
    static func run(
        _ handle: OpaquePointer?, _ group: String, _ flags: Int32, _ argc: Int32,
        _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
        _ body: (ModuleCall) throws -> Int32
    ) -> Int32 {
        guard let handle else { return PAM_SYSTEM_ERR }
        let pam = PAMHandle(raw: handle, group: group)
        var arguments: [String] = []
        if let argv {
            for index in 0..<Int(max(argc, 0)) { if let arg = argv[index] { arguments.append(String(cString: arg)) } }
        }
        // `only_expired` lines (the profile's account line) act only on the mark `auth`
        // leaves for a PIN that must be changed: otherwise nothing is read, not even options.
        if arguments.contains("only_expired") && !pam.hasFlag(.pinExpired) { return PAM_IGNORE }
        var call: ModuleCall?
        do {
            let configuration = try Configuration.load(arguments: arguments, reader: ConfigurationFile.read)
            for key in configuration.unknownKeys {
                pam.log(LOG_WARNING, "ignoring unknown option \(UserName.quoted(key))")
            }
            // In the self-service enrolment the helper runs, the password is the proof:
            // a PIN never stands in for it, and no PIN is offered there.
            if pam.item(PAM_SERVICE) == HelperProtocol.enrolService {
                if configuration.debug {
                    pam.log(LOG_DEBUG, "service \(HelperProtocol.enrolService): the PIN is not a proof here; ignoring")
                }
                return PAM_IGNORE
            }
            let made = ModuleCall(pam: pam, flags: flags, configuration: configuration)
            if !made.authority.readsRecords { warnAboutOptionsTheHelperIgnores(arguments, pam: pam) }
            call = made
            return try body(made)
        } catch {
            // Only a PIN check's: a session or account step's failure is no PIN outcome.
            let check = group == "auth" || group == "chauthtok"
            let result = ModuleResult(
                for: error, user: call?.currentUser, origin: check ? call?.originFields ?? "" : "")
            if let line = result.log {
                pam.log(
                    result.priority, line,
                    event: result.event ?? (check && result.code == PAM_AUTHINFO_UNAVAIL ? .unavailable : nil),
                    user: call?.currentUser)
            }
            if let call, group == "auth", call.asksForPIN {
                switch result.message {
                case .error(let text)?: call.tell(text)
                case .info(let text)?: call.inform(text)
                case nil: break
                }
            }
            return result.code
        }
    }

    /// Whether this `auth` line asks for a PIN: not the lines after the primary
    /// authentication (`authsucc`, `enrol=`), whose failures the user is not told of.
    var asksForPIN: Bool { !configuration.authSucceeded && configuration.enrol == .off }

    /// Options that only change this process's behaviour; every other option (the state,
    /// the policy, `conf=` itself) is read by secureroom-helper from the config file.
    private static let perCallOptions: Set<Substring> = [
        "debug", "silent", "nodelay", "use_first_pass", "try_first_pass", "pin_or_password", "nopin", "helper",
        "only_expired",
        "enrol", "enrol_snooze", "enrol_group", "enrol_vault",
    ]

    /// Without root the records are checked by secureroom-helper, which reads only
    /// /etc/security/secureroom.conf; say so if module arguments try to set policy.
    private static func warnAboutOptionsTheHelperIgnores(_ arguments: [String], pam: PAMHandle) {
        let ignored = arguments.map { $0.prefix { $0 != "=" } }.filter { !perCallOptions.contains($0) }
        guard !ignored.isEmpty else { return }
        pam.log(
            LOG_WARNING,
            "running without root: secureroom-helper reads \(Configuration.defaultConfigPath) "
                + "and ignores the module arguments \(ignored.joined(separator: ", "))")
    }

    /// Prompts for a PIN of the configured form; tells the user when the input is not one.
    func promptPIN(_ prompt: String) throws -> SecretBytes {
        do {
            return try pam.promptPIN(prompt, format: configuration.format)
        } catch SecureRoomError.malformedPIN(let digits) {
            tell(Messages.malformed(digits: digits))
            throw SecureRoomError.malformedPIN(digits: digits)
        }
    }

    /// The user name if libpam already has one (for log lines); never prompts.
    var currentUser: String? { pam.item(PAM_USER) }

    /// Why this transaction counts as coming from the network, or nil if it is local:
    /// its service is one of `remote_services=`, or PAM_RHOST names another host.
    var remoteOrigin: String? {
        if let service = pam.item(PAM_SERVICE), configuration.remoteServices.contains(service) {
            return "service \(UserName.quoted(service))"
        }
        if let host = pam.item(PAM_RHOST), !LocalHost.isLocal(host) {
            return "remote host \(UserName.quoted(host))"
        }
        return nil
    }

    /// A transaction from the network with `remote=deny`, or a local one of a service not
    /// in `local_services=`, is none of the module's business: true (and a log line) if the
    /// caller should return PAM_IGNORE at once. (With `remote=allow`, `remote=` alone
    /// decides for transactions from the network.)
    func ignoresTransaction() -> Bool {
        let user = currentUser.map(UserName.quoted) ?? "?"
        if let origin = remoteOrigin {
            guard configuration.remote == .deny else { return false }
            pam.log(
                LOG_INFO, "PIN not used for \(user): \(origin) is remote (remote=deny)\(originFields)", event: .notUsed,
                user: currentUser)
            return true
        }
        if let allowed = configuration.localServices, let service = pam.item(PAM_SERVICE), !allowed.contains(service) {
            pam.log(
                LOG_INFO,
                "PIN not used for \(user): service \(UserName.quoted(service)) is not in "
                    + "local_services=\(originFields)", event: .notUsed, user: currentUser)
            return true
        }
        return false
    }

    /// Where this transaction comes from, for the end of every outcome's log line and for
    /// fail2ban (pam/fail2ban/secureroom.conf): `; service=S tty=T rhost=H ruser=U`, each
    /// "-" when unset, reduced to printable ASCII without spaces.
    var originFields: String {
        func field(_ name: String, _ item: Int32) -> String {
            let value = pam.item(item).map { text in
                String(
                    text.unicodeScalars.prefix(128).map {
                        $0.isASCII && $0.value > 0x20 && $0.value < 0x7f ? Character($0) : "?"
                    })
            }
            return " \(name)=\(value.flatMap { $0.isEmpty ? nil : $0 } ?? "-")"
        }
        return ";" + field("service", PAM_SERVICE) + field("tty", PAM_TTY) + field("rhost", PAM_RHOST)
            + field("ruser", PAM_RUSER)
    }

    /// Whether messages to the user are suppressed (`silent` or PAM_SILENT).
    var isSilent: Bool { configuration.silent || has(PAM_SILENT) }

    /// Whether libpam passed `flag` (PAM_SILENT, PAM_PRELIM_CHECK, PAM_DELETE_CRED, ...).
    func has(_ flag: some BinaryInteger) -> Bool { flags & Int32(truncatingIfNeeded: flag) != 0 }

    /// Logs `line` at LOG_DEBUG when `debug` is set.
    func debug(_ line: String) {
        if configuration.debug { pam.log(LOG_DEBUG, line) }
    }

    /// Tells the user `message` as an error, unless silent.
    func tell(_ message: String) { if !isSilent { pam.error(message) } }

    /// Tells the user `message` as information, unless silent.
    func inform(_ message: String) { if !isSilent { pam.info(message) } }

    /// Whether the account with `uid` is outside SecureRoom: root, unless `even_deny_root`
    /// (a PIN exempt from the lockout would be 10,000 guesses from broken).
    func isExempt(_ uid: uid_t) -> Bool { uid == 0 && !configuration.evenDenyRoot }

    /// The validated user name and its passwd entry's uid (nil if the account is unknown).
    func resolveUser() throws -> (name: UserName, uid: uid_t?) {
        let name = try UserName(try pam.user())
        return (name, name.accountID())
    }
}
