// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A sandbox as a user without root sees it: programs run under another uid
/// (setpriv, no PAM involved) inside a private mount namespace where
///
/// - /etc/security is a copy holding this sandbox's secureroom.conf, because the setuid
///   helper reads that file and nothing else;
/// - /etc/pam.d is a copy to which tests add services (`systemService`), for programs
///   that call pam_start(3) themselves (`secureroom-vault unlock`);
/// - /dev is a small tmpfs whose /dev/log is a socket this object reads, so syslog lines
///   from the helper and the module can be asserted.
///
/// The module, driver, admin tool and a setuid-root copy of the helper live in
/// `<root>/bin`, readable by everyone, so the test does not depend on where the
/// repository was cloned. Nothing outside the namespace changes.
public final class UnprivilegedStage {
    /// The sandbox whose state is used.
    public let sandbox: Sandbox
    /// Directory of the copied artifacts.
    public var bin: String { sandbox.root + "/bin" }
    /// The setuid-root helper copy.
    public var helper: String { bin + "/secureroom-helper" }
    /// A copy of the helper without the setuid bit (an installation mistake).
    public var helperWithoutSetuidBit: String { bin + "/secureroom-helper-not-setuid" }
    /// The module copy.
    public var module: String { bin + "/pam_secureroom.so" }
    /// A world-writable directory (for marker files written by the caller).
    public var scratch: String { sandbox.root + "/scratch" }

    private let logSocket: Int32
    private var collected: [String] = []
    private let logLock = NSLock()

    /// How a program's standard input and output start.
    public enum Descriptors {
        /// Pipes, as usual.
        case pipes
        /// Standard input closed.
        case closedInput
        /// Standard output closed.
        case closedOutput
        /// Standard input is a terminal (a pseudo-terminal the test holds).
        case terminalInput
        /// Standard input is a regular file holding the input.
        case fileInput
        /// Standard input is a pipe that stays open and silent until the program ends (a
        /// caller that went quiet); `input` is not sent.
        case silentInput
    }

    /// Prepares the stage. `extraConfiguration` is appended to the sandbox's config file
    /// in the namespace's /etc/security/secureroom.conf (which also names the state and
    /// the helper copy).
    public init(sandbox: Sandbox, extraConfiguration: String = "") throws {
        self.sandbox = sandbox
        logSocket = try Self.bindLogSocket(at: sandbox.root + "/log.sock")
        // A datagram socket's queue is short (net.unix.max_dgram_qlen); a full one blocks
        // the program that logs. Keep it empty.
        Thread.detachNewThread { [weak self] in
            while let stage = self {
                stage.drainLog()
                usleep(20_000)
            }
        }
        let files = FileManager.default
        try files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: sandbox.root)
        // 0755 whatever the umask: the module's front loads its core only from a directory
        // nobody else may write.
        for directory in ["bin", "etc-security", "etc-pam.d", "dev-host"] {
            try files.createDirectory(
                atPath: sandbox.root + "/" + directory, withIntermediateDirectories: false,
                attributes: [.posixPermissions: 0o755])
        }
        try files.createDirectory(
            atPath: scratch, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o1777])
        for artifact in [
            Artifacts.module, Artifacts.moduleCore, Artifacts.driver, Artifacts.cli, Artifacts.helper, Artifacts.vault,
        ] {
            let copy = bin + "/" + URL(fileURLWithPath: artifact).lastPathComponent
            try files.copyItem(atPath: artifact, toPath: copy)
            try files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: copy)
        }
        try files.setAttributes([.posixPermissions: 0o4755], ofItemAtPath: helper)
        try files.copyItem(atPath: helper, toPath: helperWithoutSetuidBit)
        try files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: helperWithoutSetuidBit)

        let security = sandbox.root + "/etc-security"
        for (system, copy) in [("/etc/security", security), ("/etc/pam.d", sandbox.root + "/etc-pam.d")] {
            try files.removeItem(atPath: copy)
            let copied = try runProgram("/bin/cp", ["-a", system, copy])
            guard copied.status == 0 else {
                throw Sandbox.SandboxFailure(message: "cp \(system): \(copied.errorOutput)")
            }
        }
        let base = try String(contentsOfFile: sandbox.config, encoding: .utf8)
        try sandbox.write(
            security + "/secureroom.conf",
            base + "dir = \(sandbox.state)\nhelper = \(helper)\n" + extraConfiguration, mode: 0o644)
    }

    deinit { close(logSocket) }

    /// Moves every queued log line into `collected`.
    private func drainLog() {
        logLock.lock()
        defer { logLock.unlock() }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(logSocket, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            collected.append(String(decoding: buffer[..<count], as: UTF8.self))
        }
    }

    /// A datagram socket at `path` that anyone may send to, read without blocking.
    private static func bindLogSocket(at path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() where index < buffer.count - 1 { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard fd >= 0, bound == 0, chmod(path, 0o666) == 0 else {
            throw Sandbox.SandboxFailure(message: "cannot bind \(path): errno \(errno)")
        }
        return fd
    }

    /// The syslog lines received so far (each `<PRI>... ident[pid]: message`).
    public func logLines() -> [String] {
        drainLog()
        logLock.lock()
        defer { logLock.unlock() }
        return collected
    }

    /// Writes a service running the module copy as the stage's callers would: `MODULE`
    /// in a line becomes its path. No `dir=`/`conf=`: the namespace's config file applies.
    public func service(_ name: String, _ lines: [String]) throws {
        try sandbox.service(name, lines, module: module, state: false)
    }

    /// Writes /etc/pam.d/NAME as seen inside the namespace; `MODULE` becomes the module copy.
    public func systemService(_ name: String, _ lines: [String]) throws {
        try sandbox.service(name, lines, module: module, state: false, directory: sandbox.root + "/etc-pam.d")
    }

    /// Runs the vault tool as `uid`, with its data directory under the scratch area.
    public func vault(as uid: UInt32, _ arguments: [String], input: String = "") throws -> ProcessResult {
        let data = scratch + "/data-\(uid)"
        return try run(
            as: uid, bin + "/secureroom-vault", arguments, input: input,
            environment: ["XDG_DATA_HOME": data, "HOME": scratch])
    }

    /// The `probe` stack of `Sandbox.probeService`, for unprivileged callers, under
    /// another name (the sandbox's own "probe" stays usable by root).
    public func probeService(_ name: String = "unprivileged", arguments: String = "") throws {
        try sandbox.probeService(name, arguments: arguments, module: module, state: false)
    }

    /// Runs `program` (an absolute path) as `uid` (group `uid` too) in the namespace with
    /// exactly `environment`, feeding `input`.
    public func run(
        as uid: UInt32, _ program: String, _ arguments: [String],
        input: String = "", environment: [String: String] = [:],
        descriptors: Descriptors = .pipes
    ) throws -> ProcessResult {
        let redirection: String
        switch descriptors {
        case .pipes, .terminalInput, .silentInput: redirection = ""
        case .closedInput: redirection = "<&-"
        case .closedOutput: redirection = ">&-"
        case .fileInput:
            redirection = "<file"
            try sandbox.write(scratch + "/stdin-file", input, mode: 0o644)
        }
        let command =
            ["/usr/bin/env", "-i"] + environment.map { "\($0.key)=\($0.value)" }.sorted() + [program] + arguments
        var standardInput: FileHandle?
        if case .terminalInput = descriptors { standardInput = try Self.openTerminal() }
        defer { try? standardInput?.close() }
        // Our copy of the write end stays open, unwritten, until the program has ended.
        let silence = Pipe()
        defer { try? silence.fileHandleForWriting.close() }
        if case .silentInput = descriptors { standardInput = silence.fileHandleForReading }
        return try runProgram(
            Artifacts.root + "/scripts/lib/sandbox",
            [
                "--bind", sandbox.root + "/etc-security", "/etc/security",
                "--bind", sandbox.root + "/etc-pam.d", "/etc/pam.d",
                "--", "/bin/sh", "-c", Self.namespaceScript, "stage", sandbox.root, String(uid), redirection,
            ] + command,
            input: input, standardInput: standardInput)
    }

    /// Runs the driver (`driver`, default the stage's copy) as `uid` for `service`,
    /// answering prompts with `responses`.
    public func pam(
        as uid: UInt32, _ service: String = "unprivileged", user: String, responses: [String] = [],
        operations: [String] = ["auth"], driverOptions: [String] = [],
        driver: String? = nil
    ) throws -> PAMTranscript {
        PAMTranscript(
            try run(
                as: uid, driver ?? bin + "/secureroom-pam-driver",
                sandbox.driverArguments(service, user: user, options: driverOptions, operations: operations),
                input: Sandbox.lines(responses)))
    }

    /// Runs the admin tool as `uid` (no --dir or --config: a user's invocation).
    public func cli(as uid: UInt32, _ arguments: [String], input: String = "") throws -> ProcessResult {
        try run(as: uid, bin + "/secureroom", arguments, input: input)
    }

    /// Runs the helper as `uid`.
    public func helper(
        as uid: UInt32, _ arguments: [String], input: String = "",
        environment: [String: String] = [:], descriptors: Descriptors = .pipes
    ) throws -> ProcessResult {
        try run(as: uid, helper, arguments, input: input, environment: environment, descriptors: descriptors)
    }

    /// A terminal for standard input: the master side of a new pseudo-terminal, which
    /// isatty(3) reports as a terminal like any other.
    private static func openTerminal() throws -> FileHandle {
        guard let terminal = FileHandle(forUpdatingAtPath: "/dev/ptmx") else {
            throw Sandbox.SandboxFailure(message: "cannot open /dev/ptmx")
        }
        return terminal
    }

    /// Inside scripts/lib/sandbox, which bound the stage's /etc/security and /etc/pam.d:
    /// a private /dev, then the program as the caller (uid and gid alike). Arguments: root
    /// uid redirection command...
    private static let namespaceScript = #"""
        set -e
        root=$1 uid=$2 redirection=$3
        shift 3
        mount --rbind /dev "$root/dev-host"
        mount -t tmpfs -o mode=0755,nosuid tmpfs /dev
        for node in null zero full random urandom tty; do
          touch "/dev/$node"
          mount --bind "$root/dev-host/$node" "/dev/$node"
        done
        touch /dev/log
        mount --bind "$root/log.sock" /dev/log
        case $redirection in
          "<&-") exec <&- ;;
          ">&-") exec >&- ;;
          "<file") exec <"$root/scratch/stdin-file" ;;
        esac
        exec setpriv --reuid="$uid" --regid="$uid" --clear-groups -- "$@"
        """#
}
