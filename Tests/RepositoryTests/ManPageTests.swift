// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomCore
import SecureRoomTestSupport
import XCTest

/// The man pages (man/*.scd): they render and pass mandoc's lint, the configuration pages
/// name every key the parser knows, and the tools' pages name every subcommand and every
/// long option their --help prints, and the exit statuses --help lists.
final class ManPageTests: XCTestCase {
    private func page(_ name: String) throws -> String {
        try String(contentsOfFile: Artifacts.root + "/man/" + name + ".scd", encoding: .utf8)
    }

    func testPagesRenderWithoutLintWarnings() throws {
        var template = Array("/tmp/secureroom-man.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        let directory = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try runProgram(Artifacts.root + "/scripts/man", [directory + "/out"])
        XCTAssertEqual(result.status, 0, result.output + result.errorOutput)
        for name in [
            "pam_secureroom.8", "secureroom.8", "secureroom-helper.8", "secureroom-vault.1", "secureroom.conf.5",
        ] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: directory + "/out/" + name), name)
        }
    }

    func testConfigurationPagesNameEveryKey() throws {
        let parsed = try ConfigurationKeys.parsed()
        XCTAssertGreaterThanOrEqual(parsed.count, 30, "the parser's keys were not found: \(parsed.sorted())")
        for name in ["secureroom.conf.5", "pam_secureroom.8"] {
            let text = try page(name)
            let words = Set(text.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).map(String.init))
            XCTAssertEqual(parsed.subtracting(words).sorted(), [], "keys missing from man/\(name).scd")
        }
    }

    /// The module arguments that apply without root, as pam_secureroom(8) lists them, are
    /// the module's own list (`ModuleCall.perCallOptions`, read from its source).
    func testModulePageListsTheArgumentsThatApplyWithoutRoot() throws {
        let source = try String(
            contentsOfFile: Artifacts.root + "/Sources/PAMSecureRoom/ModuleCall.swift", encoding: .utf8)
        let list = try XCTUnwrap(source.components(separatedBy: "perCallOptions: Set<Substring> = [").dropFirst().first)
        let code = Set(
            list.prefix { $0 != "]" }.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter {
                $0.offset % 2 == 1
            }.map { String($0.element) })
        XCTAssertGreaterThanOrEqual(code.count, 10, "the list was not found: \(code.sorted())")
        let text = try page("pam_secureroom.8").replacingOccurrences(of: "\n", with: " ")
        let sentence =
            try XCTUnwrap(text.components(separatedBy: "of the module arguments, only ").dropFirst().first)
            .components(separatedBy: " apply then").first ?? ""
        let listed = Set(
            sentence.split(separator: "*", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }
                .map { String($0.element) })
        XCTAssertEqual(listed, code, "man/pam_secureroom.8.scd lists other arguments than ModuleCall.perCallOptions")
    }

    /// The long options (`--name`) in the OPTIONS list of a --help text (not those its
    /// prose mentions, such as another program's).
    private func longOptions(_ help: String) -> Set<String> {
        var options = Set<String>()
        var inList = false
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "OPTIONS:" {
                inList = true
                continue
            }
            guard inList else { continue }
            if !line.isEmpty, !line.hasPrefix(" ") {
                inList = false
                continue
            }
            guard line.drop(while: { $0 == " " }).hasPrefix("-") else { continue }
            for word in line.split(separator: " ") where word.hasPrefix("--") {
                let name = word.dropFirst(2).prefix { $0.isLetter || $0.isNumber || $0 == "-" }
                if !name.isEmpty { options.insert("--" + name) }
            }
        }
        return options
    }

    /// The subcommand names a --help text lists (under "SUBCOMMANDS:" or "... SUBCOMMANDS:").
    private func subcommands(_ help: String) -> [String] {
        var names: [String] = []
        var inList = false
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasSuffix("SUBCOMMANDS:") {
                inList = true
                continue
            }
            if inList, line.hasPrefix("  "), !line.hasPrefix("   "), let word = line.split(separator: " ").first,
                word.allSatisfy({ $0.isLowercase || $0 == "-" })
            {
                names.append(String(word))
            } else if inList, !line.hasPrefix(" ") {
                inList = line.isEmpty ? inList : false
            }
        }
        return names
    }

    private func help(_ tool: String, _ arguments: [String]) throws -> String {
        let result = try runProgram(tool, arguments + ["--help"])
        XCTAssertEqual(result.status, 0, "\(tool) \(arguments) --help: \(result.errorOutput)")
        return result.output
    }

    private func checkTool(_ tool: String, page name: String, expected: [String]) throws {
        let text = try page(name)
        let top = try help(tool, [])
        var commands = subcommands(top)
        XCTAssertEqual(Set(commands), Set(expected), "\(tool) --help lists other subcommands than this test knows")
        for command in commands {
            commands += subcommands(try help(tool, [command])).map { command + " " + $0 }
        }
        var missing: [String] = []
        for option in longOptions(top) where !text.contains(option) { missing.append(option) }
        for command in commands {
            let words = command.split(separator: " ").map(String.init)
            if !text.contains("*\(command)*"), !text.contains("*\(words[words.count - 1])*") { missing.append(command) }
            for option in longOptions(try help(tool, words)) where !text.contains(option) {
                missing.append("\(command) \(option)")
            }
        }
        XCTAssertEqual(missing, [], "named by \(tool) --help but not in man/\(name).scd")
    }

    func testAdminToolPageNamesEverySubcommandAndOption() throws {
        try checkTool(
            Artifacts.cli, page: "secureroom.8",
            expected: ["change", "enrol", "policy", "init", "set", "expire", "reset", "status", "tune", "tpm"])
    }

    func testVaultPageNamesEverySubcommandAndOption() throws {
        try checkTool(
            Artifacts.vault, page: "secureroom-vault.1",
            expected: [
                "init", "add", "import", "export", "get", "list", "remove", "rename", "status", "unlock", "recover",
                "lock", "serve",
            ])
    }

    /// The exit statuses `--help` lists ("  N   text" under EXIT STATUS) are the ones the
    /// page's EXIT STATUS section lists (`*N*` entries), no more and no fewer.
    func testExitStatusesMatchBetweenHelpAndPage() throws {
        for (tool, name) in [(Artifacts.cli, "secureroom.8"), (Artifacts.vault, "secureroom-vault.1")] {
            let text = try help(tool, [])
            let helped =
                text.components(separatedBy: "EXIT STATUS\n").dropFirst().first?
                .split(separator: "\n").prefix { $0.hasPrefix("  ") }
                .compactMap { $0.split(separator: " ").first.map(String.init) } ?? []
            let section =
                try page(name).components(separatedBy: "# EXIT STATUS\n").dropFirst().first?
                .components(separatedBy: "\n# ").first ?? ""
            let documented = section.split(separator: "\n").filter { $0.hasPrefix("*") && $0.hasSuffix("*") }
                .map { String($0.dropFirst().dropLast()) }
            XCTAssertFalse(helped.isEmpty, "\(tool) --help lists no exit status")
            XCTAssertEqual(Set(helped), Set(documented), "\(name) against \(tool) --help")
        }
    }

    func testHelperPageNamesEveryRequest() throws {
        let text = try page("secureroom-helper.8")
        for request in HelperProtocol.Request.allCases.map(\.rawValue) {
            XCTAssertTrue(text.contains("*\(request)* _USER_"), request)
        }
        let synopsis = HelperProtocol.Request.allCases.map { "*\($0.rawValue)*" }.joined(separator: "|")
        XCTAssertTrue(text.contains("*secureroom-helper* \(synopsis) _USER_"), "the synopsis lists every request")
    }
}
