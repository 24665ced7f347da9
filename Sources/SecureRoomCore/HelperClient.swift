import CSecureRoomSystem
import Glibc

/// Checks and changes the caller's own PIN through the setuid `secureroom-helper`, for
/// callers that cannot read the root-only state (screen lockers, a user's
/// `secureroom change`). Speaks `HelperProtocol` over a socket pair, so a helper that
/// exits early can never raise SIGPIPE in the host process.
public struct HelperClient: PINAuthority {
    /// The helper executable.
    public let path: String
    /// How long to wait for each reply line (the helper runs argon2 at most once).
    public var replyTimeoutMilliseconds: Int32 = 120_000

    /// A client for the helper at `path`.
    public init(path: String) { self.path = path }

    /// See `PINAuthority.check`.
    public func check(_ user: UserName, pin: () throws -> SecretBytes) throws -> PINVerifier.Outcome {
        try run(.verify, for: user) { [try pin()] }
    }

    /// See `PINAuthority.change`. Both PINs are collected before the helper sees either,
    /// so `new` should apply the policy itself; the helper applies it again.
    public func change(_ user: UserName, current: () throws -> SecretBytes,
                       new: () throws -> SecretBytes) throws -> PINVerifier.Outcome {
        try run(.change, for: user) { [try current(), try new()] }
    }

    private func run(_ request: HelperProtocol.Request, for user: UserName,
                     pins: () throws -> [SecretBytes]) throws -> PINVerifier.Outcome {
        try checkInstallation()
        let process = try HelperProcess(path: path, arguments: [request.rawValue, user.rawValue],
                                        timeoutMilliseconds: replyTimeoutMilliseconds)
        var answer = try process.readLine()
        if answer == HelperProtocol.readyLine {
            do {
                for secret in try pins() { try process.send(secret) }
            } catch {
                process.abandon()
                throw error
            }
            process.finishSending()
            answer = try process.readLine()
        }
        let status = process.waitForExit()
        guard let reply = HelperReply(line: Substring(answer)), reply.exitStatus.rawValue == status else {
            throw SecureRoomError.helperFailed("\(path) answered \(UserName.quoted(answer)) with exit status \(status)")
        }
        switch reply {
        case .checked(let outcome): return outcome
        case .rejected(let reason): throw SecureRoomError.pinRejected(reason)
        case .refused(let reason): throw SecureRoomError.helperRefused(reason)
        case .failed: throw SecureRoomError.helperFailed("\(path) could not use the state; see the system log")
        }
    }

    /// A clear error for a helper that is missing or not installed setuid root.
    private func checkInstallation() throws {
        var info = stat()
        guard stat(path, &info) == 0 else { throw SecureRoomError.helperFailed("cannot run \(path): \(String(cString: strerror(errno)))") }
        guard info.st_uid == 0, info.st_mode & S_ISUID != 0, sr_s_isreg(info.st_mode) != 0 else {
            throw SecureRoomError.helperFailed("\(path) is not installed setuid root (expected owner root, mode 4755)")
        }
    }
}

/// One running helper: its pid and our end of the socket pair. Replies are read with a
/// timeout; the child is always reaped (killed first if it overstayed).
private final class HelperProcess {
    private let path: String
    private let pid: pid_t
    private var socket: Int32
    private let timeout: Int32
    private var pending: [UInt8] = []
    private var savedChildAction = sigaction()
    private var timedOut = false
    private var reaped = false

    init(path: String, arguments: [String], timeoutMilliseconds: Int32) throws {
        self.path = path
        timeout = timeoutMilliseconds
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw SecureRoomError.system(operation: "socketpair", path: "", errno: errno)
        }
        socket = pair[0]
        defer { close(pair[1]) }
        _ = sr_sigchld_default(&savedChildAction)
        var launched: pid_t = 0
        let result = Self.spawn(path: path, arguments: arguments, childEnd: pair[1], pid: &launched)
        guard result == 0 else {
            _ = sr_sigchld_restore(&savedChildAction)
            close(pair[0])
            throw SecureRoomError.helperFailed("cannot run \(path): \(String(cString: strerror(result)))")
        }
        pid = launched
    }

    deinit {
        _ = waitForExit()
        if socket >= 0 { close(socket) }
    }

    /// posix_spawn with the socket as stdin and stdout, /dev/null as stderr, no other
    /// descriptors, no blocked signals and an empty environment.
    private static func spawn(path: String, arguments: [String], childEnd: Int32, pid: inout pid_t) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        guard posix_spawn_file_actions_adddup2(&actions, childEnd, STDIN_FILENO) == 0,
              posix_spawn_file_actions_adddup2(&actions, childEnd, STDOUT_FILENO) == 0,
              posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0) == 0,
              sr_spawn_addclosefrom(&actions, 3) == 0,
              sr_spawnattr_unblock_signals(&attributes) == 0
        else { return errno }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var environment: [UnsafeMutablePointer<CChar>?] = [nil]
        return posix_spawn(&pid, path, &actions, &attributes, argv, &environment)
    }

    /// The next reply line (without its newline); throws if none comes in time.
    func readLine() throws -> String {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            guard pending.count < HelperProtocol.maximumReplyLength else {
                throw SecureRoomError.helperFailed("\(path) sent an overlong reply")
            }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, timeout)
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
                return String(decoding: pending, as: UTF8.self)
            }
            pending.append(contentsOf: chunk[..<count])
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
            let sent = Glibc.send(socket, bytes.baseAddress?.advanced(by: offset), bytes.count - offset, Int32(MSG_NOSIGNAL))
            if sent < 0 && errno == EINTR { continue }
            // The helper went away (it refused, or was killed); its exit status explains.
            guard sent > 0 else { return }
            offset += sent
        }
    }

    /// Tells the helper no more input follows.
    func finishSending() { _ = shutdown(socket, Int32(SHUT_WR)) }

    /// Gives up on the request: the helper reads end of input and exits without a check.
    func abandon() {
        close(socket)
        socket = -1
    }

    /// Reaps the helper (killing it first if it did not answer in time) and restores the
    /// host's SIGCHLD action. Returns its exit status, or -1 if it did not exit normally.
    @discardableResult
    func waitForExit() -> Int32 {
        guard !reaped else { return -1 }
        reaped = true
        if timedOut { kill(pid, SIGKILL) }
        var status: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(pid, &status, 0) } while result < 0 && errno == EINTR
        _ = sr_sigchld_restore(&savedChildAction)
        guard result == pid, sr_wifexited(status) != 0 else { return -1 }
        return sr_wexitstatus(status)
    }
}
