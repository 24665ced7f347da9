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
