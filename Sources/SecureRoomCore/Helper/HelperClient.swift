// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomSystem
import Glibc

/// Checks and changes the caller's own PIN through the setuid `secureroom-helper`, for
/// callers that cannot read the root-only state (screen lockers, a user's
/// `secureroom change`). Speaks `HelperProtocol` over a socket pair, so a helper that
/// exits early can never raise SIGPIPE in the host process.
public struct HelperClient: PINAuthority {
    /// The helper executable.
    public let path: String
    /// The caller's options: `helper=` names `path`; `nopin=fail` without the state
    /// spends the configured argon2 run (`checkWithoutPIN`). The helper reads its own.
    public let configuration: Configuration
    /// How long to wait for each reply line (the helper runs argon2 at most once).
    static let replyTimeoutMilliseconds: Int32 = 120_000

    /// A client for the helper `helper=` names in `configuration`.
    public init(configuration: Configuration) {
        self.path = configuration.helperPath
        self.configuration = configuration
    }

    /// See `PINAuthority.readsRecords`: false, the helper does.
    public var readsRecords: Bool { false }

    /// See `PINAuthority.check`.
    public func check(_ user: UserName, pin: () throws -> SecretBytes) throws -> PINVerifier.Outcome {
        try run(.verify, for: user) { [try pin()] }.outcome
    }

    /// See `PINAuthority.change`. Both PINs are collected before the helper sees either,
    /// so `new` should apply the policy itself; the helper applies it again.
    public func change(
        _ user: UserName, current: () throws -> SecretBytes,
        new: (_ current: SecretBytes) throws -> SecretBytes
    ) throws -> PINVerifier.Outcome {
        try run(.change, for: user) {
            let typed = try current()
            return [typed, try new(typed)]
        }.outcome
    }

    /// See `PINAuthority.setUpVault`.
    public func setUpVault(
        _ user: UserName, replace: Bool,
        pin: () throws -> SecretBytes
    ) throws -> (outcome: PINVerifier.Outcome, recoveryKey: RecoveryKey?) {
        try run(replace ? .replaceVault : .setupVault, for: user) { [try pin()] }
    }

    /// See `PINAuthority.recoverVault`. The recovery key is asked first and sent first;
    /// the helper tries it before it checks the PIN.
    public func recoverVault(
        _ user: UserName, recoveryKey: () throws -> RecoveryKey,
        pin: () throws -> SecretBytes
    ) throws -> PINVerifier.Outcome {
        try run(.recoverVault, for: user) {
            let key = try recoveryKey()
            return [key.digits, try pin()]
        }.outcome
    }

    /// See `PINAuthority.status(of:)`: nil. (`pinState(of:)` asks the helper.)
    public func status(of user: UserName) throws -> LockoutStatus? { nil }

    /// See `PINAuthority.standing(of:)`: `.unknown`.
    public func standing(of user: UserName) throws -> PINStanding { .unknown }

    /// See `PINAuthority.checkWithoutPIN`: one argon2 run here (none if `prompted`: the
    /// helper spent a decoy's), and what a first wrong PIN gets.
    public func checkWithoutPIN(
        _ user: UserName, prompted: Bool, pin: () throws -> SecretBytes
    ) throws -> PINVerifier.Outcome {
        try PINVerifier.decoyWithoutState(prompted ? nil : try pin(), for: user, configuration: configuration)
    }

    /// See `PINAuthority.passwordAccepted(by:)`: nothing.
    public func passwordAccepted(by user: UserName) throws -> PasswordAcceptance {
        PasswordAcceptance(lifted: nil, proofNotRecorded: nil)
    }

    /// See `PINAuthority.acknowledgeVaultErasure`: nothing.
    public func acknowledgeVaultErasure(_ erasure: CredentialRecord.VaultErasure, for user: UserName) throws {}

    /// See `PINAuthority.expiredPINProof`: nil.
    public func expiredPINProof(_ pin: SecretBytes, for user: UserName) throws -> SecretBytes? { nil }

    /// See `PINAuthority.replaceExpiredPIN`: `.notExpired`, and nothing is asked.
    public func replaceExpiredPIN(
        of user: UserName, vaultKey: SecretBytes?, proof: SecretBytes?,
        newPIN: (_ refusing: @escaping (SecretBytes) -> String?) throws -> SecretBytes?
    ) throws -> ExpiredPINReplacement { .notExpired }

    /// See `PINAuthority.enrolmentDeclined(by:)`: nil.
    public func enrolmentDeclined(by user: UserName) throws -> OfferRecord? { nil }

    /// See `PINAuthority.declineEnrolment(by:)`: nothing.
    public func declineEnrolment(by user: UserName) throws {}

    /// See `PINAuthority.enrolAtLogin`: refused.
    public func enrolAtLogin(
        _ pin: SecretBytes, for user: UserName, vault: Bool
    ) throws -> (vaultKey: SecretBytes, recoveryKey: RecoveryKey)? {
        throw SecureRoomError.helperRefused("a PIN is created at login only as root; use 'secureroom enrol'")
    }

    /// Creates (or, with `replace`, replaces) the caller's own PIN: the helper first runs
    /// the PAM service secureroom-enrol, whose questions and messages `converse` answers
    /// and shows (an answer of nil abandons); only once the password is accepted is
    /// `newPIN` called. On success the outcome carries the new vault key and the recovery
    /// key when `enrol_vault` made them. `denied` (wrong password) throws
    /// `SecureRoomError.passwordNotAccepted`.
    public func enrol(
        _ user: UserName, replace: Bool,
        converse: (HelperConversation) throws -> SecretBytes?,
        newPIN: () throws -> SecretBytes
    ) throws -> (outcome: PINVerifier.Outcome, recoveryKey: RecoveryKey?) {
        try run(replace ? .enrolReplace : .enrol, for: user, converse: converse) { [try newPIN()] }
    }

    /// Where the caller's own vault key stands (no PIN is asked or counted).
    public func vaultState(of user: UserName) throws -> VaultState {
        try state(.vaultState, of: user) { if case .vaultState(let state) = $0 { state } else { nil } }
    }

    /// Where the caller's own PIN stands (no PIN is asked or counted).
    public func pinState(of user: UserName) throws -> PINState {
        try state(.pinState, of: user) { if case .pinState(let state) = $0 { state } else { nil } }
    }

    /// A request that reads no PIN and answers with a state, which `extract` takes out of
    /// the reply; any other reply throws its own error.
    private func state<State>(
        _ request: HelperProtocol.Request, of user: UserName, _ extract: (HelperReply) -> State?
    ) throws -> State {
        let (reply, secrets) = try exchange(request, for: user) { [] }
        if let state = extract(reply) { return state }
        _ = try result(of: reply, for: user, secrets: secrets)  // throws the reply's own error
        throw SecureRoomError.helperFailed("\(path) answered \(UserName.quoted(reply.line)) to \(request.rawValue)")
    }

    private func run(
        _ request: HelperProtocol.Request, for user: UserName,
        converse: (HelperConversation) throws -> SecretBytes? = { _ in nil },
        pins: () throws -> [SecretBytes]
    ) throws -> (outcome: PINVerifier.Outcome, recoveryKey: RecoveryKey?) {
        let (reply, secrets) = try exchange(request, for: user, converse: converse, pins: pins)
        return try result(of: reply, for: user, secrets: secrets)
    }

    /// One request, whole: the relayed conversation, the PINs after `ready`, the final
    /// reply checked against the exit status, and its key material decoded.
    private func exchange(
        _ request: HelperProtocol.Request, for user: UserName,
        converse: (HelperConversation) throws -> SecretBytes? = { _ in nil },
        pins: () throws -> [SecretBytes]
    )
        throws -> (reply: HelperReply, secrets: (vaultKey: SecretBytes?, recoveryKey: RecoveryKey?))
    {
        try checkInstallation()
        let process = try HelperProcess(
            path: path, arguments: [request.rawValue, user.rawValue],
            timeoutMilliseconds: Self.replyTimeoutMilliseconds)
        var answer = try process.readLine()
        while let line = HelperConversation(line: Substring(answer.text)) {
            do {
                let reply = try converse(line)
                if line.isQuestion {
                    guard let reply else { throw PAMConversationAbandoned() }
                    try process.send(reply)
                }
            } catch {
                process.finish()
                throw error
            }
            answer = try process.readLine()
        }
        if answer.text == HelperProtocol.readyLine {
            do {
                for secret in try pins() { try process.send(secret) }
            } catch {
                // End of input before the PINs: the helper checks nothing and exits.
                process.finish()
                throw error
            }
            answer = try process.readLine()
        }
        let status = process.finish()
        guard let reply = HelperReply(line: Substring(answer.text)), reply.exitStatus.rawValue == status,
            let secrets = answer.secrets.withUnsafeBytes({ HelperSecrets.decode($0) })
        else {
            throw SecureRoomError.helperFailed(
                "\(path) answered \(UserName.quoted(answer.text)) with exit status \(status)")
        }
        return (reply, secrets)
    }

    /// A final reply as the PINAuthority outcome it reports, or the error it stands for.
    private func result(
        of reply: HelperReply, for user: UserName, secrets: (vaultKey: SecretBytes?, recoveryKey: RecoveryKey?)
    )
        throws -> (outcome: PINVerifier.Outcome, recoveryKey: RecoveryKey?)
    {
        switch reply {
        case .checked(.success): return (.success(.init(vaultKey: secrets.vaultKey)), secrets.recoveryKey)
        case .checked(let outcome): return (outcome, nil)
        case .rejected(let reason): throw SecureRoomError.pinRejected(reason)
        case .refused(let reason): throw SecureRoomError.helperRefused(reason)
        case .tpm(let problem): throw SecureRoomError.tpm(problem)
        case .failed: throw SecureRoomError.helperFailed("\(path) could not use the state; see the system log")
        case .passwordFirst: throw SecureRoomError.passwordFirst(user: user.rawValue)
        case .busy:
            throw SecureRoomError.busy(
                path: "the caller's records (\(path))", seconds: ProtectedDirectory.lockPatience,
                holder: "another process")
        case .denied(let reason): throw SecureRoomError.passwordNotAccepted(reason)
        case .vaultState, .pinState:
            throw SecureRoomError.helperFailed("\(path) answered a state to a PIN request: \(reply.line)")
        }
    }

    /// The caller gave no answer to a question of the relayed conversation.
    public struct PAMConversationAbandoned: Error, CustomStringConvertible {
        /// One line for the user.
        public var description: String { "no answer given; nothing was changed" }
    }

    /// A clear error for a helper that is missing or not installed setuid root.
    private func checkInstallation() throws {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            throw SecureRoomError.helperFailed(
                errno == ENOENT
                    ? "cannot run \(path): \(reason) (it comes with the package libpam-secureroom)"
                    : "cannot run \(path): \(reason)")
        }
        guard info.st_uid == 0, info.st_mode & S_ISUID != 0, sr_s_isreg(info.st_mode) != 0 else {
            throw SecureRoomError.helperFailed("\(path) is not installed setuid root (expected owner root, mode 4755)")
        }
    }
}

/// One running helper: its pid and our end of the socket pair. Each reply is awaited
/// until a deadline; the child is always reaped, and killed first if it overstays.
///
/// SIGCHLD: a host that ignores it would have the kernel reap the helper and lose its exit
/// status, so the action is set to the default — only around the final `waitpid`, as
/// pam_unix does around unix_chkpwd. The helper cannot exit before that: after its reply
/// it waits for end of input, which `finish` sends only once SIGCHLD is ready.
private final class HelperProcess {
    private let path: String
    private let pid: pid_t
    private var socket: Int32
    private let timeout: Int32
    private var pending: [UInt8] = []
    private var timedOut = false
    private var exitStatus: Int32?

    /// How long `finish` waits for the helper to exit after end of input.
    private static let exitPatienceMilliseconds: Int64 = 10_000

    init(path: String, arguments: [String], timeoutMilliseconds: Int32) throws {
        self.path = path
        timeout = timeoutMilliseconds
        // Room for the longest line plus one read, so appending never moves key material.
        pending.reserveCapacity(2 * HelperProtocol.maximumReplyLength)
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw SecureRoomError.system(operation: "socketpair", path: "", errno: errno)
        }
        socket = pair[0]
        defer { close(pair[1]) }
        // The socket as stdin and stdout, /dev/null as stderr, and an empty environment.
        switch ChildProcess.spawn(
            [path] + arguments, executable: path,
            standard: [
                STDIN_FILENO: .descriptor(pair[1]), STDOUT_FILENO: .descriptor(pair[1]),
                STDERR_FILENO: .file("/dev/null", flags: O_WRONLY),
            ], environment: [])
        {
        case .success(let launched): pid = launched
        case .failure(let failure):
            close(pair[0])
            throw SecureRoomError.helperFailed("cannot run \(path): \(String(cString: strerror(failure.errno)))")
        }
    }

    deinit { finish() }

    /// The next reply line (without its newline), split after `success` into the public
    /// text and the key material (`HelperSecrets`), which never passes through a String.
    /// Throws if no line comes before the deadline.
    func readLine() throws -> (text: String, secrets: SecretBytes) {
        let deadline = Deadline(millisecondsFromNow: Int64(timeout))
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = pending[..<newline]
                let word = line.firstIndex(of: UInt8(ascii: " ")) ?? line.endIndex
                let isSuccess = line[..<word].elementsEqual("success".utf8)
                let textEnd = isSuccess ? word : line.endIndex
                let text = String(decoding: line[..<textEnd], as: UTF8.self)
                let secrets = pending[textEnd..<newline].withUnsafeBytes { SecretBytes(copying: $0) }
                pending.withUnsafeMutableBytes { sr_explicit_bzero($0.baseAddress, newline + 1) }
                pending.removeSubrange(...newline)
                return (text, secrets)
            }
            guard pending.count < HelperProtocol.maximumReplyLength else {
                throw SecureRoomError.helperFailed("\(path) sent an overlong reply")
            }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = deadline.hasPassed ? 0 : poll(&descriptor, 1, deadline.remainingMilliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else {
                timedOut = true
                throw SecureRoomError.helperFailed("\(path) did not answer within \(timeout / 1000) s")
            }
            var chunk = [UInt8](repeating: 0, count: HelperProtocol.maximumReplyLength)
            let count = read(socket, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                // No final line: the exit status alone tells what happened.
                return (String(decoding: pending, as: UTF8.self), SecretBytes(count: 0))
            }
            pending.append(contentsOf: chunk[..<count])
            chunk.withUnsafeMutableBytes { sr_explicit_bzero($0.baseAddress, $0.count) }
        }
    }

    /// Sends one PIN and its newline straight from the secret buffer.
    func send(_ secret: SecretBytes) throws {
        try secret.withUnsafeBytes { try sendAll($0) }
        let newline = UInt8(ascii: "\n")
        try withUnsafeBytes(of: newline) { try sendAll($0) }
    }

    private func sendAll(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = Glibc.send(
                socket, bytes.baseAddress?.advanced(by: offset), bytes.count - offset, Int32(MSG_NOSIGNAL))
            if sent < 0 && errno == EINTR { continue }
            // The helper went away (it refused, or was killed); its exit status explains.
            guard sent > 0 else { return }
            offset += sent
        }
    }

    /// Sends end of input, reaps the helper (killing it if it overstayed) and restores the
    /// host's SIGCHLD action. Returns its exit status, or -1 if it did not exit normally.
    @discardableResult
    func finish() -> Int32 {
        if let exitStatus { return exitStatus }
        var saved = sigaction()
        _ = sr_sigchld_default(&saved)
        defer { _ = sr_sigchld_restore(&saved) }
        if socket >= 0 {
            close(socket)
            socket = -1
        }
        if timedOut { kill(pid, SIGKILL) }
        let deadline = Deadline(millisecondsFromNow: Self.exitPatienceMilliseconds)
        var status: Int32 = 0
        var result: pid_t
        repeat {
            result = waitpid(pid, &status, WNOHANG)
            if result == 0 {
                if deadline.hasPassed { kill(pid, SIGKILL) }
                usleep(2_000)
            }
        } while result == 0 || (result < 0 && errno == EINTR)
        let code: Int32 = result == pid && sr_wifexited(status) != 0 ? sr_wexitstatus(status) : -1
        exitStatus = code
        return code
    }
}
