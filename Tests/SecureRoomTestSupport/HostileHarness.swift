// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The module run as root by a hostile application or on a hostile filesystem, with its
/// syslog lines captured: the driver runs in an `UnprivilegedStage` namespace (whose
/// /dev/log is a socket the stage reads) as uid 0, under `timeout -s KILL`, so a hang
/// shows as status 137 instead of hanging the suite.
///
/// `problems` holds one case to the rules of the `hostile` reliability item: the driver
/// ended by itself with the expected PAM code (no signal, no hang, a `result` line), the
/// module logged a line saying why, and the case is recorded for the report.
public final class HostileHarness {
    /// The stage (and through it the sandbox).
    public let stage: UnprivilegedStage
    /// The enrolled user.
    public let user: String
    /// The user's PIN.
    public let pin: String
    /// The test class, for the report.
    public let suite: String
    /// Seconds after which a driver run is killed.
    public static let timeout = 60

    /// The sandbox: its state directory, config file and admin tool.
    public var sandbox: Sandbox { stage.sandbox }
    /// The user's credential record.
    public var credential: String { sandbox.state + "/users/\(user).credential" }
    /// The user's lockout record.
    public var lockout: String { sandbox.state + "/users/\(user).lockout" }
    /// The pepper file.
    public var pepper: String { sandbox.state + "/pepper" }

    private let report = ReliabilityReport(item: "hostile")

    /// `user` enrolled with `pin` in a new sandbox, and the service "probe" running the
    /// stage's module copy with `arguments` (`debug` logs accepted PINs too) in its auth
    /// and password groups, each followed by pam_debug as in `Sandbox.probeService`.
    public init(suite: String, user: String = "daemon", pin: String = "7391", arguments: String = "debug") throws {
        self.suite = suite
        self.user = user
        self.pin = pin
        stage = try UnprivilegedStage(sandbox: try Sandbox.enrolled(user, pin: pin))
        try stage.sandbox.service(
            "probe",
            [
                "auth [success=done ignore=ignore default=die] MODULE STATE nodelay \(arguments)",
                "auth requisite pam_debug.so auth=cred_expired",
                "password [success=done ignore=ignore default=die] MODULE STATE nodelay \(arguments)",
                "password requisite pam_debug.so chauthtok=cred_expired",
            ], module: stage.module)
    }

    /// One driver run: its transcript and the syslog lines the module wrote meanwhile.
    public struct Run {
        /// What the driver printed and its exit status.
        public let transcript: PAMTranscript
        /// Lines tagged `pam_secureroom(` logged during the run.
        public let moduleLog: [String]
    }

    /// Runs the driver as root for "probe" with `options` (see driver.c), `user` (nil: no
    /// PAM_USER) and `responses` on standard input.
    public func run(
        user name: String?, options: [String] = [], responses: [String] = [],
        operations: [String] = ["auth"]
    ) throws -> Run {
        let before = stage.logLines().count
        let arguments =
            ["-s", "KILL", String(Self.timeout), stage.bin + "/secureroom-pam-driver"]
            + sandbox.driverArguments("probe", user: name, options: options, operations: operations)
        let process = try stage.run(
            as: 0, "/usr/bin/timeout", arguments, input: Sandbox.lines(responses),
            environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"])
        let lines = stage.logLines().dropFirst(before).filter { $0.contains("pam_secureroom(") }
        return Run(transcript: PAMTranscript(process), moduleLog: Array(lines))
    }

    /// Runs the driver for the enrolled user (see `run(user:options:responses:operations:)`).
    public func run(options: [String] = [], responses: [String] = [], operations: [String] = ["auth"]) throws -> Run {
        try run(user: user, options: options, responses: responses, operations: operations)
    }

    /// What is wrong with `run` for a case that must end cleanly with `code` and a module
    /// log line containing `log` (empty when nothing is); records the case for the report.
    /// Tests assert the list is empty (this target does not link XCTest).
    public func problems(_ run: Run, code: Int32, log: String, case name: String) -> [String] {
        let process = run.transcript.process
        let context = "status \(process.status), output \(process.output)\(process.errorOutput), log \(run.moduleLog)"
        var problems: [String] = []
        if process.status == 137 { problems.append("\(name): killed after \(Self.timeout) s (hang)") }
        if process.status >= 64 { problems.append("\(name): not a PAM code (signal or usage)") }
        if run.transcript.code != code { problems.append("\(name): PAM code \(run.transcript.code), expected \(code)") }
        let results = run.transcript.results
        if results.isEmpty { problems.append("\(name): libpam returned no result") }
        let matching = run.moduleLog.first { $0.contains(log) }
        if matching == nil { problems.append("\(name): no syslog line containing \"\(log)\"") }
        let result =
            results.last.map { $0.drop { $0 != " " }.dropFirst() }.map(String.init) ?? "status \(process.status)"
        report.record(
            suite: suite, case: name, result: problems.isEmpty ? result : "VIOLATION \(result)",
            syslog: (matching ?? run.moduleLog.last ?? "(none)").replacingOccurrences(of: sandbox.root, with: "SANDBOX")
        )
        return problems.isEmpty ? [] : problems + [context]
    }
    /// Records a case summarised by the test itself (many runs in one row). In syslog
    /// lines (here and in `problems`) the sandbox root reads SANDBOX.
    public func record(case name: String, result: String, syslog: String) {
        report.record(
            suite: suite, case: name, result: result,
            syslog: syslog.replacingOccurrences(of: sandbox.root, with: "SANDBOX"))
    }

    /// The user's failure count as `secureroom status --json` reports it, from the state
    /// directory `directory` (default: the sandbox's).
    public func failures(in directory: String? = nil) throws -> Int? {
        try sandbox.status(user, directory: directory)["failures"] as? Int
    }

    /// Every entry under `path` (dot files included, symlinks not followed) with its type,
    /// mode, owner, inode, size, modification time and contents (or link target): equal
    /// snapshots mean nothing was created, removed, replaced or written there.
    public static func snapshot(_ path: String) -> [String: String] {
        var entries: [String: String] = [:]
        func visit(_ relative: String) {
            let full = relative.isEmpty ? path : path + "/" + relative
            var info = stat()
            guard lstat(full, &info) == 0 else {
                entries[relative] = "missing"
                return
            }
            var summary =
                "mode \(String(info.st_mode, radix: 8)) uid \(info.st_uid) ino \(info.st_ino) "
                + "size \(info.st_size) mtime \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                entries[relative] = summary
                let names = (try? FileManager.default.contentsOfDirectory(atPath: full)) ?? []
                for name in names.sorted() { visit(relative.isEmpty ? name : relative + "/" + name) }
            case S_IFLNK:
                summary += " -> " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: full)) ?? "?")
                entries[relative] = summary
            case S_IFREG:
                let contents = FileManager.default.contents(atPath: full) ?? Data()
                entries[relative] = summary + " data " + contents.base64EncodedString()
            default:
                entries[relative] = summary
            }
        }
        visit("")
        return entries
    }
}
