import Foundation
import Glibc

/// A software TPM 2.0 (Debian's swtpm) of one test's own: a fresh state directory, a
/// free loopback port, started at init and killed (by pid) at `stop()` or deinit. Its
/// state is read back with tpm2-tools, independently of SecureRoom's TPM code; swtpm
/// serves one client at a time, so close SecureRoom's connection before asking.
public final class SoftwareTPM {
    /// The TCP port of the TPM commands (the control channel is the next one).
    public let port: Int
    /// The swtpm state directory (removed at `stop()`).
    public let directory: String
    private var pid: Int32?

    /// The TCTI string for ESAPI and for `tpm_tcti=`.
    public var tcti: String { "swtpm:host=127.0.0.1,port=\(port)" }

    /// Starts a fresh swtpm (manufactured, started up: `not-need-init,startup-clear`) whose
    /// dictionary-attack logic allows `maxTries` failures and forgets one every
    /// `recoverySeconds` (swtpm's own defaults are 3 and 1,000 s; 32 and 600 are what
    /// `secureroom tpm harden` sets).
    public init(maxTries: Int = 32, recoverySeconds: Int = 600) throws {
        var template = Array("/tmp/secureroom-swtpm.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Sandbox.SandboxFailure(message: "mkdtemp for swtpm failed") }
        directory = String(cString: made)
        var lastError = ""
        var started: (pid: Int32, port: Int)?
        for _ in 0..<20 where started == nil {
            // Below the kernel's ephemeral range (32768 on), where no client connection
            // left in TIME_WAIT can hold the port; a pair that is taken is skipped.
            let candidate = Int.random(in: 10_000...32_766) & ~1
            // The daemon must not keep runProgram's pipes (or any other inherited
            // descriptor) open, or reading them would never end: its output goes to a log.
            let command =
                "swtpm socket --tpm2 --tpmstate dir=\(directory)"
                + " --server type=tcp,port=\(candidate),bindaddr=127.0.0.1"
                + " --ctrl type=tcp,port=\(candidate + 1),bindaddr=127.0.0.1"
                + " --flags not-need-init,startup-clear --daemon --pid file=\(directory)/pid"
                + " --log file=\(directory)/log"
            let detach =
                #"for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done 2>/dev/null; "#
                + #"exec "$0" "$@" </dev/null >/dev/null 2>>"$LOG""#
            let result = try runProgram(
                "/bin/bash", ["-c", detach] + command.split(separator: " ").map(String.init),
                environment: ["LOG": "\(directory)/stderr"])
            lastError = (try? String(contentsOfFile: "\(directory)/stderr", encoding: .utf8)) ?? result.errorOutput
            if result.status == 0, let text = try? String(contentsOfFile: "\(directory)/pid", encoding: .utf8),
                let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                started = (pid, candidate)
            }
        }
        guard let started else {
            try? FileManager.default.removeItem(atPath: directory)
            throw Sandbox.SandboxFailure(message: "swtpm did not start: \(lastError)")
        }
        pid = started.pid
        port = started.port
        try waitUntilListening()
        let limits = try tool([
            "tpm2_dictionarylockout", "--setup-parameters", "--max-tries=\(maxTries)",
            "--recovery-time=\(recoverySeconds)", "--lockout-recovery-time=1000",
        ])
        guard limits.status == 0 else {
            throw Sandbox.SandboxFailure(message: "tpm2_dictionarylockout: \(limits.errorOutput)")
        }
    }

    deinit { stop() }

    /// Kills the TPM with SIGKILL (as a crash or a pulled chip would end it) and
    /// removes its state.
    public func stop() {
        if let pid {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, WNOHANG)
        }
        pid = nil
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Kills the TPM but keeps its state (a test of what follows a dead chip).
    public func kill9() {
        if let pid { kill(pid, SIGKILL) }
        pid = nil
    }

    private func waitUntilListening() throws {
        for _ in 0..<100 {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            close(socket)
            if connected == 0 { return }
            usleep(20_000)
        }
        throw Sandbox.SandboxFailure(message: "swtpm on port \(port) does not accept connections")
    }

    /// Runs a tpm2-tools command against this TPM.
    @discardableResult
    public func tool(_ arguments: [String]) throws -> ProcessResult {
        try runProgram("/usr/bin/timeout", ["10"] + arguments, environment: ["TPM2TOOLS_TCTI": tcti])
    }

    /// TPM2_PT_LOCKOUT_COUNTER as `tpm2_getcap properties-variable` reports it.
    public func lockoutCounter() throws -> Int? {
        let result = try tool(["tpm2_getcap", "properties-variable"])
        guard let line = result.lines.first(where: { $0.hasPrefix("TPM2_PT_LOCKOUT_COUNTER:") }),
            let value = line.split(separator: ":").last.map({ $0.trimmingCharacters(in: .whitespaces) })
        else { return nil }
        return value.hasPrefix("0x") ? Int(value.dropFirst(2), radix: 16) : Int(value)
    }

    /// Transient objects and sessions left in the TPM, per `tpm2_getcap`.
    public func leftoverHandles() throws -> [String] {
        var handles: [String] = []
        for capability in ["handles-transient", "handles-loaded-session", "handles-saved-session"] {
            let result = try tool(["tpm2_getcap", capability])
            guard result.status == 0 else {
                throw Sandbox.SandboxFailure(message: "tpm2_getcap \(capability): \(result.errorOutput)")
            }
            handles += result.lines.filter { $0.contains("0x") }.map { "\(capability): \($0)" }
        }
        return handles
    }
}
