// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

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
        // The one launcher (scripts/lib/swtpm.sh): a free port pair, a daemon that keeps
        // none of our descriptors, the dictionary-attack parameters set.
        let script = #"source "$0" && swtpm_start "$1" "$2" "$3" 1000 && echo "${TPM_TCTI##*port=}""#
        let result = try runProgram(
            "/bin/bash",
            [
                "-c", script, Artifacts.root + "/scripts/lib/swtpm.sh", directory, String(maxTries),
                String(recoverySeconds),
            ])
        guard result.status == 0, let started = Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)),
            let text = try? String(contentsOfFile: "\(directory)/pid", encoding: .utf8),
            let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            try? FileManager.default.removeItem(atPath: directory)
            throw Sandbox.SandboxFailure(message: "swtpm did not start: \(result.output)\(result.errorOutput)")
        }
        self.pid = pid
        port = started
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

    /// `Sandbox.fastKDF` with new PINs bound to this TPM (`tpm=required`).
    public var requiredConfiguration: String { Sandbox.fastKDF + "tpm = required\ntpm_tcti = \(tcti)\n" }

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

    /// Puts the chip in dictionary-attack lockout as anyone with access to it can: an object
    /// of its own with a password, and `tries` wrong passwords for it (tpm2-tools).
    public func lockOut(tries: Int) throws {
        let files = directory + "/lockout"
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
        for step in [
            ["tpm2_createprimary", "-C", "o", "-c", files + "/primary.ctx"],
            [
                "tpm2_create", "-C", files + "/primary.ctx", "-p", "right", "-u", files + "/object.pub", "-r",
                files + "/object.priv", "-i", "/etc/hostname",
            ],
            [
                "tpm2_load", "-C", files + "/primary.ctx", "-u", files + "/object.pub", "-r", files + "/object.priv",
                "-c", files + "/object.ctx",
            ],
        ] {
            let result = try tool(step)
            guard result.status == 0 else { throw Sandbox.SandboxFailure(message: "\(step[0]): \(result.errorOutput)") }
            // Without a resource manager, each tool leaves its objects loaded (3 slots).
            try tool(["tpm2_flushcontext", "-t"])
        }
        for _ in 0..<tries {
            try tool(["tpm2_unseal", "-c", files + "/object.ctx", "-p", "wrong"])
            try tool(["tpm2_flushcontext", "-t"])
        }
    }

    /// Fills the chip's NV memory with indices of its own (2 KiB ones, then 8-byte ones,
    /// until the chip refuses), as other users of a small real chip would.
    public func fillNV() throws {
        let script = #"""
            for size in 2048 8; do
              i=0
              while tpm2_nvdefine "$(printf '0x%08x' $((0x01500000 + size * 65536 + i)))" -C o -s "$size" \
                  -a "ownerread|ownerwrite" >/dev/null 2>&1; do i=$((i + 1)); done
            done
            """#
        let result = try runProgram("/bin/bash", ["-c", script], environment: ["TPM2TOOLS_TCTI": tcti])
        guard result.status == 0 else { throw Sandbox.SandboxFailure(message: "filling NV: \(result.errorOutput)") }
    }

    /// The NV indices defined on the chip (`tpm2_getcap handles-nv-index`), as "0x…".
    public func nvIndices() throws -> [String] {
        let result = try tool(["tpm2_getcap", "handles-nv-index"])
        guard result.status == 0 else { throw Sandbox.SandboxFailure(message: "tpm2_getcap: \(result.errorOutput)") }
        return result.lines.compactMap { line in
            line.split(separator: " ").map(String.init).first { $0.hasPrefix("0x") }
        }
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
