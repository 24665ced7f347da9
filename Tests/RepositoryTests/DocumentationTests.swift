// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomCore
import SecureRoomTestSupport
import XCTest

/// Facts the prose states once and the code defines: each is checked against the code, so
/// a drift fails here (issue "A house one can read").
final class DocumentationTests: XCTestCase {
    private func text(_ path: String) throws -> String {
        try String(contentsOfFile: Artifacts.root + "/" + path, encoding: .utf8)
    }

    /// The section of `document` from the heading starting with `heading` to the next
    /// heading of the same level.
    private func section(_ document: String, _ heading: String) throws -> String {
        let start = try XCTUnwrap(document.range(of: "\n" + heading), "no section \(heading)")
        let level = heading.prefix { $0 == "#" }
        let rest = document[start.upperBound...]
        let end = rest.range(of: "\n" + level + " ")?.lowerBound ?? rest.endIndex
        return String(rest[..<end])
    }

    /// The default of `local_services=` is written once in code
    /// (`Configuration.testedLocalServices`) and listed in secureroom.conf(5) and the
    /// shipped pam/secureroom.conf: each lists exactly those services.
    func testTheDocumentedLocalServicesAreTheDefault() throws {
        func listed(_ text: String, after marker: String) throws -> Set<String> {
            let start = try XCTUnwrap(text.range(of: marker), marker).upperBound
            let line = text[start...].prefix { $0 != "\n" && $0 != "." }
            return Set(line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        XCTAssertEqual(
            try listed(try text("man/secureroom.conf.5.scd"), after: "the services SecureRoom is tested with: "),
            Configuration.testedLocalServices)
        XCTAssertEqual(
            try listed(try text("pam/secureroom.conf"), after: "# local_services = "), Configuration.testedLocalServices
        )
        XCTAssertEqual(Configuration().localServices, Configuration.testedLocalServices)
    }

    /// docs/DESIGN.md §2 names every target of Package.swift.
    func testTheComponentsSectionNamesEveryTarget() throws {
        let package = try text("Package.swift")
        // Every `.target(`, `.executableTarget(` and `.systemLibrary(` (not the test targets).
        let pattern = try NSRegularExpression(
            pattern: #"\.(?:target|executableTarget|systemLibrary)\(\s*name:\s*"(\w+)""#)
        let whole = NSRange(package.startIndex..., in: package)
        let declared = Set(
            pattern.matches(in: package, range: whole).compactMap { match in
                Range(match.range(at: 1), in: package).map { String(package[$0]) }
            })
        XCTAssertGreaterThanOrEqual(declared.count, 20, "targets not found: \(declared.sorted())")
        let components = try section(try text("docs/DESIGN.md"), "## 2. Components")
        let missing = declared.filter { !components.contains($0) }
        XCTAssertEqual(missing.sorted(), [], "targets docs/DESIGN.md §2 does not name")
    }

    /// docs/DESIGN.md §2 draws the target graph (`Name → dependencies`) exactly as
    /// Package.swift declares it, as `swift package dump-package` reads the manifest.
    func testTheComponentsSectionDrawsThePackagesTargetGraph() throws {
        // Its own scratch directory: the running `swift test` holds .build's lock.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("dump-package-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let dump = try runProgram(
            "/usr/bin/env",
            ["swift", "package", "--package-path", Artifacts.root, "--scratch-path", scratch, "dump-package"])
        XCTAssertEqual(dump.status, 0, dump.errorOutput)
        let manifest = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(dump.output.utf8)) as? [String: Any])
        var declared: [String: [String]] = [:]
        for target in try XCTUnwrap(manifest["targets"] as? [[String: Any]]) {
            guard let name = target["name"] as? String, target["type"] as? String != "test" else { continue }
            let dependencies = (target["dependencies"] as? [[String: Any]] ?? []).compactMap { dependency in
                dependency.values.first.flatMap { ($0 as? [Any])?.first as? String }
            }
            if !dependencies.isEmpty, name != "SecureRoomTestSupport" { declared[name] = dependencies }
        }
        XCTAssertGreaterThanOrEqual(declared.count, 9, "targets with dependencies: \(declared.keys.sorted())")
        let components = try section(try text("docs/DESIGN.md"), "## 2. Components")
        // The section's first fenced block.
        let block = components.components(separatedBy: "```").dropFirst().first ?? ""
        var drawn: [String: [String]] = [:]
        for line in block.split(separator: "\n") where line.contains(" → ") {
            let parts = line.components(separatedBy: " → ")
            drawn[parts[0].trimmingCharacters(in: .whitespaces)] = parts[1].components(separatedBy: ", ")
        }
        XCTAssertEqual(drawn, declared, "docs/DESIGN.md §2's graph and Package.swift differ")
    }

    /// The module's glue reaches the records through one door (docs/DESIGN.md §6): only
    /// the file that builds the authority names the store or the core's checking and
    /// writing types; every other file asks `ModuleCall.authority`.
    func testTheModulesGlueReachesTheRecordsOnlyThroughTheAuthority() throws {
        let glue = Artifacts.root + "/Sources/PAMSecureRoom"
        let files = try FileManager.default.contentsOfDirectory(atPath: glue).filter { $0.hasSuffix(".swift") }
        XCTAssertGreaterThanOrEqual(files.count, 8)
        let builder = "ModuleCall.swift"
        XCTAssertTrue(try text("Sources/PAMSecureRoom/\(builder)").contains("StateStore(configuration:"))
        for file in files where file != builder {
            let source = try text("Sources/PAMSecureRoom/\(file)")
            for name in ["StateStore", "PINVerifier", "PINAdministration", "LocalPINAuthority", "ChipLedger"] {
                XCTAssertFalse(source.contains(name), "\(file) names \(name)")
            }
        }
    }

    /// docs/DESIGN.md §2 names every folder of the core (`Name/`).
    func testTheComponentsSectionNamesEveryFolderOfTheCore() throws {
        let core = Artifacts.root + "/Sources/SecureRoomCore"
        let folders = try FileManager.default.contentsOfDirectory(atPath: core).filter { name in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: core + "/" + name, isDirectory: &isDirectory)
                && isDirectory.boolValue
        }
        XCTAssertGreaterThanOrEqual(folders.count, 10)
        let components = try section(try text("docs/DESIGN.md"), "## 2. Components")
        XCTAssertEqual(folders.filter { !components.contains("`\($0)/`") }.sorted(), [], "folders §2 does not name")
    }

    /// The helper's closed set of requests, as the code defines it, is the one
    /// docs/SECURITY.md §3.2 and secureroom-helper(8)'s OPTIONS list, in that order.
    func testTheDocsListEveryHelperRequest() throws {
        let requests = HelperProtocol.Request.allCases.map(\.rawValue)
        XCTAssertGreaterThanOrEqual(requests.count, 8)
        let security = try text("docs/SECURITY.md")
        XCTAssertTrue(
            security.contains("caller → secureroom-helper \(requests.joined(separator: "|")) USER"),
            "SECURITY.md §3.2's request line")
        let options = try section(try text("man/secureroom-helper.8.scd"), "# OPTIONS")
        let listed = options.split(separator: "\n").filter { $0.hasPrefix("*") && $0.hasSuffix("* _USER_") }
            .map { String($0.dropFirst().prefix { $0 != "*" }) }
        XCTAssertEqual(listed, requests, "secureroom-helper(8)'s OPTIONS list")
    }

    /// README.md is a quick start: at most 200 lines, and its first two commands are
    /// `scripts/demo` then `scripts/test` (.ci/run runs the second).
    func testTheReadmeIsAQuickStartThatStartsWithDemoThenTest() throws {
        let readme = try text("README.md")
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        XCTAssertLessThanOrEqual(lines.count, 200, "README.md is a quick start; the reference is the man pages")
        let block = try XCTUnwrap(readme.components(separatedBy: "```sh\n").dropFirst().first)
        let commands = block.split(separator: "\n").prefix(2).map { $0.split(separator: " ").first.map(String.init) }
        XCTAssertEqual(commands, ["scripts/demo", "scripts/test"], "README's first two commands")
        XCTAssertTrue(try text(".ci/run").contains("exec scripts/test"))
    }

    // MARK: Defaults: the man pages and the shipped file against `Configuration()`

    /// The keys `Configuration.apply` parses (each `case "key"`).
    private func parsedKeys() throws -> Set<String> {
        let keys = try ConfigurationKeys.parsed()
        XCTAssertGreaterThanOrEqual(keys.count, 30, "the parser's keys were not found: \(keys.sorted())")
        return keys
    }

    /// What `configuration` holds for `key`, as text (sets sorted), or nil for a key this
    /// test does not know: a new key must be added here.
    private func held(_ key: String, _ configuration: Configuration) -> String? {
        let c = configuration
        switch key {
        case "dir": return c.directory
        case "pepper": return c.effectivePepperPath
        case "digits": return "\(c.format.digits)"
        case "deny": return "\(c.lockout.deny)"
        case "schedule": return "\(c.lockout.schedule)"
        case "argon2_memory": return "\(c.kdf.memoryKiB)"
        case "argon2_time": return "\(c.kdf.iterations)"
        case "argon2_lanes": return "\(c.kdf.lanes)"
        case "argon2_below_floor": return "\(c.allowsBelowFloor)"
        case "even_deny_root": return "\(c.evenDenyRoot)"
        case "nodelay": return "\(c.noDelay)"
        case "silent": return "\(c.silent)"
        case "debug": return "\(c.debug)"
        case "use_first_pass": return "\(c.useFirstPass)"
        case "try_first_pass": return "\(c.tryFirstPass)"
        case "pin_or_password": return "\(c.pinOrPassword)"
        case "nopin": return c.noPIN.rawValue
        case "blocklist": return c.blocklist
        case "helper": return c.helperPath
        case "vault_timeout": return "\(c.vaultTimeout)"
        case "wipe_after": return c.wipeAfter.map { "\($0)" } ?? "nil"
        case "sessions": return c.sessionDirectory
        case "remote": return c.remote.rawValue
        case "password_first": return "\(c.passwordFirst)"
        case "local_services": return c.localServices.map { $0.sorted().joined(separator: ",") } ?? "*"
        case "remote_services": return c.remoteServices.sorted().joined(separator: ",")
        case "authsucc": return "\(c.authSucceeded)"
        case "enrol": return c.enrol.rawValue
        case "enrol_snooze": return "\(c.enrolSnooze)"
        case "enrol_group": return c.enrolGroup ?? "nil"
        case "enrol_vault": return "\(c.enrolVault)"
        case "only_expired": return "\(c.onlyExpired)"
        case "tpm": return c.tpm.rawValue
        case "tpm_tcti": return c.tpmTCTI
        case "tpm_pcrs": return "\(c.tpmPCRs)"
        default: return nil
        }
    }

    /// Checks one documented default against `Configuration()`: the value, applied to a
    /// fresh configuration, must leave `key` as it was. "off" is a flag's default (or,
    /// where the key takes no "off", an unset value), as are "unset" and a placeholder
    /// in capitals (pam/secureroom.conf's `N`); "empty" is the empty value; `DIR/pepper`
    /// names the default directory.
    private func checkDefault(_ key: String, _ documented: String, in document: String) {
        let fresh = Configuration()
        guard let now = held(key, fresh) else {
            XCTFail("\(document): \(key) is not a key this test knows")
            return
        }
        var value = documented
        if value == "DIR/pepper" { value = fresh.directory + "/pepper" }
        if value == "empty" { value = "" }
        var flagged = Configuration()
        var worded = Configuration()
        let expected: String?
        if value == "unset" || (!value.isEmpty && value.allSatisfy({ $0.isUppercase })) {
            expected = "nil"
        } else if value == "off", (try? flagged.apply(key)) != nil {
            expected = "false"
        } else if value == "off", (try? worded.apply(key + "=off")) == nil {
            expected = "nil"
        } else {
            var applied = Configuration()
            do {
                try applied.apply(key + "=" + value)
                expected = held(key, applied)
            } catch {
                XCTFail("\(document): \(key)'s documented default \(documented) does not parse: \(error)")
                return
            }
        }
        XCTAssertEqual(now, expected, "\(document) says \(key) defaults to \(documented)")
    }

    /// The defaults the OPTIONS section of a man page writes, by key: each entry (a line
    /// starting `*key` or `- *key`, with its indented lines) that says "Default: VALUE."
    /// or "(default: VALUE)". Markup is dropped, and so are a closing remark in
    /// parentheses ("unset (everyone)") and words before a colon ("the services ...: LIST").
    private func manPageDefaults(_ page: String) throws -> [String: String] {
        let options = try section(try text(page), "# OPTIONS")
        var entries: [(key: String, text: String)] = []
        for line in options.split(separator: "\n", omittingEmptySubsequences: false) {
            let head = line.hasPrefix("- *") ? line.dropFirst(2) : line
            if head.hasPrefix("*") {
                let key = head.dropFirst().prefix { $0 != "*" && $0 != "=" }
                entries.append((String(key), String(head)))
            } else if line.hasPrefix("\t") || line.hasPrefix("  "), !entries.isEmpty {
                entries[entries.count - 1].text += " " + line.trimmingCharacters(in: .whitespaces)
            } else if !entries.isEmpty, entries[entries.count - 1].key != "" {
                entries.append(("", ""))
            }
        }
        var defaults: [String: String] = [:]
        for entry in entries where !entry.key.isEmpty {
            let text = entry.text
            guard let marker = text.range(of: "default: ", options: .caseInsensitive) else { continue }
            var value = Substring(text[marker.upperBound...])
            if text[..<marker.lowerBound].hasSuffix("(") {
                var depth = 1
                value = value.prefix { character in
                    if character == "(" { depth += 1 }
                    if character == ")" { depth -= 1 }
                    return depth > 0
                }
            } else {
                if let stop = value.range(of: ". ") { value = value[..<stop.lowerBound] }
                if value.hasSuffix(".") { value = value.dropLast() }
            }
            var cleaned = value.filter { $0 != "*" && $0 != "_" && $0 != "\\" }
            if cleaned.hasSuffix(")"), let open = cleaned.range(of: " (", options: .backwards) {
                cleaned = String(cleaned[..<open.lowerBound])
            }
            if let colon = cleaned.range(of: ": ", options: .backwards) {
                cleaned = String(cleaned[colon.upperBound...])
            }
            XCTAssertNil(defaults[entry.key], "\(page) gives \(entry.key) two defaults")
            defaults[entry.key] = cleaned
        }
        return defaults
    }

    /// Every default written in secureroom.conf(5) and pam_secureroom(8) is the one
    /// `Configuration()` has, and each page gives one for every key the parser knows.
    func testTheManPagesDefaultsAreConfigurations() throws {
        let keys = try parsedKeys()
        XCTAssertEqual(keys.filter { held($0, Configuration()) == nil }.sorted(), [], "keys this test does not know")
        for page in ["man/secureroom.conf.5.scd", "man/pam_secureroom.8.scd"] {
            let defaults = try manPageDefaults(page)
            XCTAssertEqual(keys.subtracting(defaults.keys).sorted(), [], "keys without a default in \(page)")
            XCTAssertEqual(Set(defaults.keys).subtracting(keys).sorted(), [], "defaults of unknown keys in \(page)")
            for (key, value) in defaults.sorted(by: { $0.key < $1.key }) {
                // pam_secureroom(8) refers to secureroom.conf(5) for the list of services.
                if value.hasPrefix("see ") {
                    XCTAssertEqual(value, "see secureroom.conf(5)", "\(page): \(key)")
                    continue
                }
                checkDefault(key, value, in: page)
            }
        }
    }

    /// Every setting of the shipped pam/secureroom.conf (`# key = value`, or `# key` for a
    /// flag, off by default) shows the default `Configuration()` has.
    func testTheShippedConfigShowsConfigurationsDefaults() throws {
        let keys = try parsedKeys()
        var shown: [String: String] = [:]
        for line in try text("pam/secureroom.conf").split(separator: "\n") where line.hasPrefix("# ") {
            let setting = line.dropFirst(2)
            let key = setting.prefix { $0 != " " && $0 != "=" }
            guard keys.contains(String(key)) else { continue }
            let rest = setting.dropFirst(key.count).trimmingCharacters(in: .whitespaces)
            if rest.isEmpty {
                shown[String(key)] = "off"
            } else if rest.hasPrefix("=") {
                shown[String(key)] = rest.dropFirst().trimmingCharacters(in: .whitespaces)
            }
        }
        XCTAssertEqual(keys.subtracting(shown.keys).sorted(), [], "keys pam/secureroom.conf does not show")
        for (key, value) in shown.sorted(by: { $0.key < $1.key }) {
            checkDefault(key, value.isEmpty ? "empty" : value, in: "pam/secureroom.conf")
        }
    }

    // MARK: Return codes: pam_secureroom(8) against the module's one mapping

    /// The RETURN CODES section of pam_secureroom(8): each code's entries (every group),
    /// one text per code.
    private func documentedCodes() throws -> [String: String] {
        let codes = try section(try text("man/pam_secureroom.8.scd"), "# RETURN CODES")
        var entries: [String: String] = [:]
        var current: String?
        for line in codes.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("PAM_") {
                let code = String(line.prefix { $0.isUppercase || $0 == "_" })
                current = code
                entries[code, default: ""] += " " + line
            } else if line.hasPrefix("\t"), let code = current {
                entries[code, default: ""] += " " + line.trimmingCharacters(in: .whitespaces)
            } else {
                current = nil
            }
        }
        return entries
    }

    /// Every PAM code the module can return, read from its source (the module target
    /// cannot be imported): each `return PAM_X`, `code: PAM_X` and `? PAM_X : PAM_Y` of
    /// Sources/PAMSecureRoom (ModuleResult's mapping and the groups' own answers), and
    /// what Sources/CSecureRoomPAM/front/front.c answers when the core cannot be loaded.
    private func producedCodes() throws -> Set<String> {
        let glue = Artifacts.root + "/Sources/PAMSecureRoom"
        let pattern = try NSRegularExpression(pattern: #"(?:\breturn|\bcode:|\?|:)\s*(PAM_[A-Z_]+)\b"#)
        var codes = Set<String>()
        for file in try FileManager.default.contentsOfDirectory(atPath: glue) where file.hasSuffix(".swift") {
            let source = try text("Sources/PAMSecureRoom/\(file)")
            for line in source.split(separator: "\n") {
                let code = String(line)
                if code.trimmingCharacters(in: .whitespaces).hasPrefix("//") { continue }
                for match in pattern.matches(in: code, range: NSRange(code.startIndex..., in: code)) {
                    if let range = Range(match.range(at: 1), in: code) { codes.insert(String(code[range])) }
                }
            }
        }
        let front = try text("Sources/CSecureRoomPAM/front/front.c")
        let forward = try NSRegularExpression(pattern: #"^FORWARD\(\w+, (PAM_[A-Z_]+)\)"#, options: .anchorsMatchLines)
        let forwarded = forward.matches(in: front, range: NSRange(front.startIndex..., in: front))
        XCTAssertEqual(forwarded.count, 6, "Sources/CSecureRoomPAM/front/front.c's six entry points")
        for match in forwarded {
            if let range = Range(match.range(at: 1), in: front) { codes.insert(String(front[range])) }
        }
        return codes
    }

    /// pam_secureroom(8)'s RETURN CODES list exactly the codes the module can return.
    func testTheModulePageListsEveryReturnCode() throws {
        let produced = try producedCodes()
        XCTAssertGreaterThanOrEqual(produced.count, 12, "codes found: \(produced.sorted())")
        let documented = try documentedCodes()
        XCTAssertEqual(produced.subtracting(documented.keys).sorted(), [], "returned but not in pam_secureroom(8)")
        XCTAssertEqual(Set(documented.keys).subtracting(produced).sorted(), [], "in pam_secureroom(8), never returned")
    }

    /// Each case of ModuleResult's mapping (`case .x, .y:` then its `code: PAM_X`) is
    /// described under its code in pam_secureroom(8): `described` holds the words the
    /// page uses for it, or nil for the tools' errors, which no module path raises.
    func testTheModulePageDescribesEveryMappedError() throws {
        let described: [String: String?] = [
            "insecure": "insecure", "stateMissing": "missing", "corruptRecord": "corrupt",
            "system": "a system call", "kdfFailure": "argon2 failed", "helperFailed": "the helper is missing",
            "busy": "locked by another process", "invalidUserName": "cannot be a record name",
            "invalidConfiguration": "bad option value", "malformedPIN": "malformed PIN",
            "pinRejected": "would not take the PIN", "helperRefused": "the helper refused",
            "accountUnavailable": "closed account", "changedConcurrently": "another change of the same PIN",
            "notEnrolled": "No PIN", "passwordFirst": "password_first", "pinLengthChanged": "another length",
            "tpm": "TPM problem",
            // secureroom init's, and the vault set-up's, recovery's and enrolment's.
            "alreadyInitialized": nil, "invalidRecoveryKey": nil, "wrongRecoveryKey": nil,
            "vaultWouldBeLost": nil, "vaultKeyExists": nil, "passwordNotAccepted": nil,
        ]
        let source = try text("Sources/PAMSecureRoom/ModuleResult.swift")
        let mapping = try XCTUnwrap(
            source.components(separatedBy: "switch failure {\n").dropFirst().first?.components(
                separatedBy: "\n        default:"
            )
            .first)
        // The mapping's own cases are its least indented ones (a nested switch goes deeper).
        let lines = mapping.split(separator: "\n")
        let indent = try XCTUnwrap(lines.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("case .") })
            .prefix { $0 == " " }.count
        var mapped: [(cases: [String], code: String?)] = []
        var continued = false
        let name = try NSRegularExpression(pattern: #"\.(\w+)"#)
        for line in lines {
            let body = line.trimmingCharacters(in: .whitespaces)
            let names = name.matches(in: body, range: NSRange(body.startIndex..., in: body)).compactMap {
                Range($0.range(at: 1), in: body).map { String(body[$0]) }
            }
            if line.prefix(while: { $0 == " " }).count == indent, body.hasPrefix("case .") {
                mapped.append((names, nil))
                continued = !body.hasSuffix(":")
            } else if continued, body.hasPrefix("."), !mapped.isEmpty {
                mapped[mapped.count - 1].cases += names
                continued = !body.hasSuffix(":")
            } else if let range = body.range(of: #"code: PAM_[A-Z_]+"#, options: .regularExpression),
                !mapped.isEmpty, mapped[mapped.count - 1].code == nil
            {
                mapped[mapped.count - 1].code = String(body[range].dropFirst("code: ".count))
            }
        }
        let all = mapped.flatMap(\.cases)
        XCTAssertGreaterThanOrEqual(all.count, 20, "the mapping's cases: \(mapped)")
        XCTAssertEqual(Set(all).subtracting(described.keys).sorted(), [], "cases this test does not know")
        let documented = try documentedCodes()
        for (cases, code) in mapped {
            let code = try XCTUnwrap(code, "no code for \(cases)")
            for error in cases {
                guard let words = described[error] ?? nil else { continue }
                let entry = documented[code]?.replacingOccurrences(of: "*", with: "") ?? ""
                XCTAssertTrue(entry.contains(words), "pam_secureroom(8) does not say \(words) (\(error)) under \(code)")
            }
        }
    }

    /// docs/SECURITY.md's sections are numbered in order.
    func testSecuritySectionsAreInOrder() throws {
        let numbers = try text("docs/SECURITY.md").split(separator: "\n").filter {
            $0.hasPrefix("## ") || $0.hasPrefix("### ")
        }
        .map { line in line.split(separator: " ")[1].split(separator: ".").compactMap { Int($0) } }
        XCTAssertGreaterThan(numbers.count, 10)
        XCTAssertEqual(numbers, numbers.sorted { $0.lexicographicallyPrecedes($1) }, "\(numbers)")
    }

    /// The module's NEEDED libraries live in scripts/build only (which checks them); the
    /// design cites that list instead of repeating it in full.
    func testTheNeededLibrariesAreScriptsBuilds() throws {
        let build = try text("scripts/build")
        let list = try XCTUnwrap(
            build.components(separatedBy: "module_needed=\"").dropFirst().first?.prefix { $0 != "\"" })
        let libraries = list.split(whereSeparator: { $0 == " " || $0 == "\\" || $0 == "\n" }).map(String.init)
        // tpm2-tss is opened on first use (Sources/CTSS2), never named at load time.
        XCTAssertTrue(libraries.contains("libpam.so.0") && libraries.contains("libnettle.so.8"), "\(libraries)")
        XCTAssertFalse(libraries.contains { $0.hasPrefix("libtss2") }, "\(libraries)")
        XCTAssertTrue(try text("docs/DESIGN.md").contains("the list in scripts/build (`module_needed`)"))
    }

    /// scripts/bench (Python; not run by the suite: docs/BENCHMARKS.md) compiles, and its
    /// --help names every row it has, one module each in scripts/lib/bench/rows/.
    func testTheBenchCompilesAndItsHelpNamesEveryRow() throws {
        let rows = try FileManager.default.contentsOfDirectory(atPath: Artifacts.root + "/scripts/lib/bench/rows")
            .filter { $0.hasSuffix(".py") && $0 != "__init__.py" }.map { String($0.dropLast(3)) }
        XCTAssertGreaterThanOrEqual(rows.count, 11, "\(rows)")
        let sources =
            ["scripts/bench"]
            + (try FileManager.default.subpathsOfDirectory(atPath: Artifacts.root + "/scripts/lib/bench"))
            .filter { $0.hasSuffix(".py") }.map { "scripts/lib/bench/" + $0 }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("bench-pycache-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let compiled = try runProgram(
            "/usr/bin/python3",
            [
                "-c",
                "import py_compile, sys\n"
                    + "for f in sys.argv[1:]: py_compile.compile(f, cfile='\(scratch)/x.pyc', doraise=True)",
            ]
                + sources.map { Artifacts.root + "/" + $0 })
        XCTAssertEqual(compiled.status, 0, compiled.errorOutput)
        let help = try runProgram("/usr/bin/python3", [Artifacts.root + "/scripts/bench", "--help"])
        XCTAssertEqual(help.status, 0, help.errorOutput)
        let named = Set(
            help.output.split(separator: "\n").compactMap { line -> String? in
                let words = line.split(separator: " ")
                return line.hasPrefix("  ") && !line.hasPrefix("   ") ? words.first.map(String.init) : nil
            })
        XCTAssertEqual(Set(rows).subtracting(named).sorted(), [], "rows missing from scripts/bench --help")
    }

    /// One version: debian/changelog's newest entry, NEWS.md's newest release heading and
    /// what both tools say to --version.
    func testTheReleaseVersionIsTheChangelogs() throws {
        let changelog = try text("debian/changelog")
        let version = try XCTUnwrap(changelog.split(separator: "(").dropFirst().first?.prefix { $0 != ")" }.description)
        let news = try text("NEWS.md").split(separator: "\n").first { $0.hasPrefix("## ") }
        XCTAssertEqual(news.map(String.init), "## " + version, "NEWS.md's newest release")
        for tool in [Artifacts.cli, Artifacts.vault] {
            let result = try runProgram(tool, ["--version"])
            XCTAssertEqual(result.output, version + "\n", tool)
        }
    }
}
