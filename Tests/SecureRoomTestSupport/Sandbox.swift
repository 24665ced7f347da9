// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A throwaway SecureRoom installation: a state directory initialised by the real
/// `secureroom init`, a config file, and a PAM config directory for the driver.
/// Removed on deinit. Uses cheap argon2 parameters unless told otherwise, so the
/// suite runs quickly; the parameters themselves are tested separately.
public final class Sandbox {
    /// The temporary root (mode 0700, root-owned).
    public let root: String
    /// The state directory (`dir=`).
    public var state: String { root + "/state" }
    /// The config file passed to the CLI with --config.
    public var config: String { root + "/secureroom.conf" }
    /// Directory of PAM service files for `pam_start_confdir`.
    public var pamDirectory: String { root + "/pam.d" }

    /// Creates and initialises the sandbox; `configuration` is the text of secureroom.conf.
    public init(configuration: String = Sandbox.fastKDF) throws {
        try Artifacts.require()
        var template = Array("/tmp/secureroom-test.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        root = String(cString: made)
        try FileManager.default.createDirectory(atPath: root + "/pam.d", withIntermediateDirectories: false)
        try write(config, configuration, mode: 0o600)
        let result = try cli(["init"])
        guard result.status == 0 else { throw SandboxFailure(message: "init failed: \(result.errorOutput)") }
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// A sandbox where `user` has the PIN `pin` and the service "probe" (`probeService`)
    /// runs the module: the starting point of most module tests.
    public static func enrolled(_ user: String, pin: String, configuration: String = Sandbox.fastKDF) throws -> Sandbox
    {
        let sandbox = try Sandbox(configuration: configuration)
        try sandbox.setPIN(user, pin: pin)
        try sandbox.probeService()
        return sandbox
    }

    /// argon2 parameters small enough for hundreds of checks per test run.
    /// `tpm = off`: no test touches a real TPM (its dictionary-attack counter is the
    /// machine's); the TPM tests give their own software TPM.
    public static let fastKDF =
        "argon2_memory = 256\nargon2_time = 1\nargon2_lanes = 1\nargon2_below_floor\ntpm = off\nlocal_services = *\n"

    /// Runs the admin tool against this sandbox (or the state directory `directory`,
    /// with this sandbox's config file).
    @discardableResult
    public func cli(_ arguments: [String], input: String = "", directory: String? = nil) throws -> ProcessResult {
        try runProgram(Artifacts.cli, arguments + ["--dir", directory ?? state, "--config", config], input: input)
    }

    /// Gives `user` the PIN `pin` through `secureroom set --stdin` (in `directory`, default
    /// the sandbox's state).
    public func setPIN(_ user: String, pin: String, allowWeak: Bool = true, directory: String? = nil) throws {
        let result = try cli(
            ["set", user, "--stdin"] + (allowWeak ? ["--allow-weak"] : []), input: pin + "\n",
            directory: directory)
        guard result.status == 0 else { throw SandboxFailure(message: "set failed: \(result.errorOutput)") }
    }

    /// Writes the PAM service `name` with the given stack lines. `MODULE` in a line is
    /// replaced by `module` and `STATE` by `dir=<state> conf=<config>` (or by nothing when
    /// `state` is false), so the module and the admin tool read the same config file, as
    /// on an installed system. `directory` (default `pamDirectory`) is where it goes.
    public func service(
        _ name: String, _ lines: [String], module: String = Artifacts.module,
        state withState: Bool = true, directory: String? = nil
    ) throws {
        let text =
            lines.map {
                $0.replacingOccurrences(of: "MODULE", with: module)
                    .replacingOccurrences(of: "STATE", with: withState ? "dir=\(state) conf=\(config)" : "")
            }.joined(separator: "\n") + "\n"
        try write((directory ?? pamDirectory) + "/" + name, text, mode: 0o644)
    }

    /// Writes a service whose result shows the module's own return code: success ends
    /// the stack, PAM_IGNORE falls through to pam_debug (returning PAM_CRED_EXPIRED as
    /// a marker), any other code ends the stack with that code.
    public func probeService(
        _ name: String = "probe", arguments: String = "", group: String = "auth",
        module: String = Artifacts.module, state withState: Bool = true
    ) throws {
        let debugResult =
            group == "auth" ? "auth=cred_expired" : group == "account" ? "acct=cred_expired" : "chauthtok=cred_expired"
        try service(
            name,
            [
                "\(group) [success=done ignore=ignore default=die] MODULE STATE nodelay \(arguments)",
                "\(group) requisite pam_debug.so \(debugResult)",
            ], module: module, state: withState)
    }

    /// Runs the driver for `service` as `user`, answering prompts with `responses`.
    public func pam(
        _ service: String = "probe", user: String?, responses: [String] = [],
        operations: [String] = ["auth"], environment: [String: String] = [:],
        silent: Bool = false, options: [String] = []
    ) throws -> PAMTranscript {
        let arguments = driverArguments(
            service, user: user, options: (silent ? ["--silent"] : []) + options, operations: operations)
        return PAMTranscript(
            try runProgram(Artifacts.driver, arguments, input: Self.lines(responses), environment: environment))
    }

    /// Removes the decoy slots (`.decoy-XX`, FORMAT.md §1). Two names share a slot with odds
    /// 1 in 256 (the slot is keyed per install), so a test that compares what two names see
    /// starts each name from empty slots.
    public func forgetDecoySlots() throws {
        let users = state + "/users"
        for slot in try FileManager.default.contentsOfDirectory(atPath: users) where slot.hasPrefix(".decoy-") {
            try FileManager.default.removeItem(atPath: users + "/" + slot)
        }
    }

    /// The driver's command line for `service` in this sandbox.
    public func driverArguments(_ service: String, user: String?, options: [String], operations: [String]) -> [String] {
        ["--confdir", pamDirectory, "--service", service] + (user.map { ["--user", $0] } ?? []) + options + operations
    }

    /// Builds the LD_PRELOAD shim that counts libargon2's argon2id_ctx calls
    /// (Tests/PAMModuleTests/Fixtures/argon2-counter.c) into the sandbox; returns its path.
    /// Calls are appended to $ARGON2_COUNTER_FILE, one byte each.
    public func argon2CounterLibrary() throws -> String {
        let source = Artifacts.root + "/Tests/PAMModuleTests/Fixtures/argon2-counter.c"
        let library = root + "/argon2-counter.so"
        let result = try runProgram("/usr/bin/cc", ["-shared", "-fPIC", "-O2", "-o", library, source, "-ldl"])
        guard result.status == 0 else { throw SandboxFailure(message: "cc argon2-counter: \(result.errorOutput)") }
        return library
    }

    /// Prompt answers as the driver reads them: one line each.
    public static func lines(_ responses: [String]) -> String { responses.map { $0 + "\n" }.joined() }

    /// Writes `text` to `path` with `mode`.
    public func write(_ path: String, _ text: String, mode: Int) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    /// The user's status as printed by `secureroom status USER --json` (from `directory`,
    /// default the sandbox's state).
    public func status(_ user: String, directory: String? = nil) throws -> [String: Any] {
        let result = try cli(["status", user, "--json"], directory: directory)
        guard result.status == 0,
            let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        else { throw SandboxFailure(message: "status failed: \(result.errorOutput)") }
        return object
    }

    /// A sandbox that could not be set up.
    public struct SandboxFailure: Error, CustomStringConvertible {
        /// What went wrong.
        public let message: String
        /// The message.
        public var description: String { message }
    }
}

/// What the driver printed for one transaction.
public struct PAMTranscript {
    /// The raw result.
    public let process: ProcessResult

    /// The transcript of a finished driver run.
    public init(_ process: ProcessResult) { self.process = process }

    /// The PAM code of the last operation.
    public var code: Int32 { process.status }
    /// Prompts shown, in order.
    public var prompts: [String] { values("prompt: ") }
    /// PAM_ERROR_MSG messages, in order.
    public var errors: [String] { values("error: ") }
    /// PAM_TEXT_INFO messages, in order.
    public var infos: [String] { values("info: ") }
    /// The failure delays requested (microseconds).
    public var failureDelays: [Int] { values("fail-delay: ").compactMap { Int($0) } }
    /// `result OP: CODE NAME` per operation.
    public var results: [String] { values("result ") }

    private func values(_ prefix: String) -> [String] {
        process.lines.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }
}

/// PAM return codes (security/_pam_types.h), named for readable assertions.
public enum PAMCode {
    public static let success: Int32 = 0
    public static let serviceError: Int32 = 3
    public static let permissionDenied: Int32 = 6
    public static let authError: Int32 = 7
    public static let authInfoUnavailable: Int32 = 9
    public static let userUnknown: Int32 = 10
    public static let maxTries: Int32 = 11
    public static let credentialExpired: Int32 = 16  // pam_debug's marker: the module returned PAM_IGNORE
    public static let conversationError: Int32 = 19
    public static let authTokenError: Int32 = 20
}
