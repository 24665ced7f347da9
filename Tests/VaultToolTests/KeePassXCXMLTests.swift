// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomImport
import SecureRoomTestSupport
import SecureRoomVault
import XCTest

/// `secureroom-vault import --from keepassxc` with KeePassXC's XML export: a real export
/// made by the real keepassxc-cli (scripts/setup installs it), a hand-written one with what
/// XML allows and KeePassXC does not write, and malformed files the tool's own XML reader
/// refuses, naming the line. The tool runs as uid 1 (daemon) in a sandbox's namespace,
/// with a vault made and unlocked by `init`.
final class KeePassXCXMLTests: XCTestCase {
    let uid: UInt32 = 1
    private var sandbox: Sandbox!
    private var stage: UnprivilegedStage!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
        let base = try String(contentsOfFile: sandbox.config, encoding: .utf8)
        try sandbox.write(sandbox.config, base + "sessions = \(sandbox.root)/run\n", mode: 0o600)
        try sandbox.setPIN("daemon", pin: "4739")
        stage = try UnprivilegedStage(sandbox: sandbox)
        _ = try stage.vault(as: uid, ["lock"])
        let made = try stage.vault(as: uid, ["init", "--stdin"], input: "4739\n")
        XCTAssertEqual(made.status, 0, made.errorOutput)
    }

    /// Locks the vault, then lets the sandbox go.
    override func tearDownWithError() throws {
        if let stage { _ = try stage.vault(as: uid, ["lock"]) }
        stage = nil
        sandbox = nil
    }

    /// `import --from keepassxc FILE`, its output as the user sees it.
    private func importing(_ file: String, _ options: [String] = []) throws -> ProcessResult {
        try stage.vault(as: uid, ["import", "--from", "keepassxc"] + options + [file])
    }

    /// What `export` writes, by title: the value, the label and the attributes.
    private func exported() throws -> [String: (value: String, label: String, attributes: [String: String])] {
        let result = try stage.vault(as: uid, ["export"])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let array = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]], result.output)
        var secrets: [String: (value: String, label: String, attributes: [String: String])] = [:]
        for secret in array {
            let title = try XCTUnwrap(secret["title"] as? String)
            secrets[title] = (
                try XCTUnwrap(secret["value"] as? String), try XCTUnwrap(secret["label"] as? String),
                secret["attributes"] as? [String: String] ?? [:]
            )
        }
        return secrets
    }

    /// The real keepassxc-cli makes a database as a user would (groups, an entry without a
    /// password, two entries with one title, a password changed once so that the entry
    /// has a history, an entry deleted into the recycle bin) and exports it as XML. The
    /// export holds the passwords in clear (marked ProtectInMemory, never Protected), the
    /// old password in <History> and the deleted entry in the recycle bin; the import
    /// stores the current passwords under GROUP/TITLE with their labels and attributes,
    /// counts the entry without a password, leaves out history and recycle bin, and a
    /// re-run skips everything.
    func testImportsTheXMLExportOfTheRealKeePassXCCLI() throws {
        let home = stage.scratch + "/keepassxc-home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false)
        XCTAssertEqual(chown(home, uid, uid), 0)
        let script = """
            set -e
            cd "$HOME"
            k="-q --no-password -k key"
            keepassxc-cli --version
            keepassxc-cli db-create -q --set-key-file key db.kdbx
            keepassxc-cli mkdir $k db.kdbx Internet
            keepassxc-cli mkdir $k db.kdbx Internet/Mail
            url='https://bank.example/?a=1&b=2'
            printf '%s\\n' 'p<a&"ss]]>é' | keepassxc-cli add $k -u me --url "$url" -p db.kdbx Bank
            printf 'forum-pw\\n' | keepassxc-cli add $k -u fan -p db.kdbx Internet/Forum
            printf 'second-pw\\n' | keepassxc-cli add $k -u fan2 -p db.kdbx Internet/Forum2
            keepassxc-cli edit $k -t Forum db.kdbx Internet/Forum2
            keepassxc-cli add $k db.kdbx Internet/Empty
            printf 'mail-pw\\n' | keepassxc-cli add $k -u me@example.org -p db.kdbx Internet/Mail/Webmail
            printf 'deleted-pw\\n' | keepassxc-cli add $k -p db.kdbx Gone
            keepassxc-cli rm $k db.kdbx Gone
            printf 'new-pw\\n' | keepassxc-cli edit $k -p db.kdbx Internet/Forum
            keepassxc-cli export $k --format xml db.kdbx > export.xml
            keepassxc-cli export $k --format csv db.kdbx > export.csv
            """
        let made = try stage.run(
            as: uid, "/bin/sh", ["-c", script], environment: ["HOME": home, "PATH": "/usr/bin:/bin"])
        XCTAssertEqual(made.status, 0, "keepassxc-cli (scripts/setup installs it): " + made.errorOutput)
        XCTAssertTrue(made.output.hasPrefix("2."), made.output)
        let xml = try String(contentsOfFile: home + "/export.xml", encoding: .utf8)
        XCTAssertTrue(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\""), String(xml.prefix(100)))
        XCTAssertTrue(xml.contains("<Value ProtectInMemory=\"True\">new-pw</Value>"), xml)
        XCTAssertTrue(xml.contains("<Value ProtectInMemory=\"True\">p&lt;a&amp;&quot;ss]]&gt;é</Value>"), xml)
        XCTAssertFalse(xml.contains("Protected=\"True\""), "an unencrypted export has no encrypted value")
        XCTAssertTrue(xml.contains("<History>") && xml.contains(">forum-pw</Value>"), "the old password, kept")
        XCTAssertTrue(xml.contains("<Name>Recycle Bin</Name>") && xml.contains(">deleted-pw</Value>"), xml)
        XCTAssertTrue(xml.contains("<RecycleBinEnabled>True</RecycleBinEnabled>"), xml)

        let imported = try importing(home + "/export.xml")
        XCTAssertEqual(imported.status, 1, "the entry without a password failed")
        XCTAssertEqual(
            imported.errorOutput,
            "secureroom-vault: imported 4 secrets, skipped 0 already in the vault, failed 1\n"
                + "  Internet/Empty: entry 4 has no password\n")
        let secrets = try exported()
        XCTAssertEqual(
            Set(secrets.keys), ["Bank", "Internet/Forum", "Internet/Forum (2)", "Internet/Mail/Webmail"],
            "no history, no recycle bin")
        XCTAssertEqual(secrets["Bank"]?.value, "p<a&\"ss]]>é")
        XCTAssertEqual(secrets["Bank"]?.label, "Bank")
        XCTAssertEqual(secrets["Bank"]?.attributes, ["username": "me", "url": "https://bank.example/?a=1&b=2"])
        XCTAssertEqual(secrets["Internet/Forum"]?.value, "new-pw", "the current password, not the history's")
        XCTAssertEqual(secrets["Internet/Forum"]?.label, "Forum")
        XCTAssertEqual(secrets["Internet/Forum"]?.attributes, ["username": "fan", "keepassxc-group": "Internet"])
        XCTAssertEqual(secrets["Internet/Forum (2)"]?.value, "second-pw")
        XCTAssertEqual(secrets["Internet/Forum (2)"]?.label, "Forum")
        XCTAssertEqual(secrets["Internet/Mail/Webmail"]?.value, "mail-pw")
        XCTAssertEqual(
            secrets["Internet/Mail/Webmail"]?.attributes,
            ["username": "me@example.org", "keepassxc-group": "Internet/Mail"])
        let again = try importing(home + "/export.xml")
        XCTAssertTrue(
            again.errorOutput.hasPrefix(
                "secureroom-vault: imported 0 secrets, skipped 4 already in the vault, failed 1"),
            again.errorOutput)
        // The same database's CSV export names the root group ("Passwords" from keepassxc-cli)
        // in every path; without it the titles are the XML's, so the same 4 are skipped. CSV
        // does not mark the recycle bin: its entry is a group like any other there.
        let csv = try String(contentsOfFile: home + "/export.csv", encoding: .utf8)
        XCTAssertTrue(csv.contains("\"Passwords/Internet\",\"Forum\""), csv)
        let fromCSV = try importing(home + "/export.csv")
        XCTAssertTrue(
            fromCSV.errorOutput.hasPrefix(
                "secureroom-vault: imported 1 secret, skipped 4 already in the vault, failed 1"),
            fromCSV.errorOutput)
        XCTAssertEqual(try exported()["Recycle Bin/Gone"]?.value, "deleted-pw")
    }

    /// What XML allows and KeePassXC does not write, by hand: a byte-order mark, CR LF line
    /// ends, single-quoted attributes, a comment, a processing instruction, a CDATA section,
    /// decimal and hex character references and the predefined entities, all in a
    /// password. With <RecycleBinEnabled> False the group its UUID names is an ordinary
    /// group and imported; set to True, it is left out.
    func testReadsWhatXMLAllowsAndTheRecycleBinOnlyWhenEnabled() throws {
        func export(recycleBin: String) -> String {
            """
            \u{FEFF}<?xml version='1.0' encoding='utf-8'?>
            <!-- by hand -->
            <?keepass an instruction, skipped?>
            <KeePassFile>
            <Meta><RecycleBinEnabled>\(recycleBin)</RecycleBinEnabled>\
            <RecycleBinUUID>dHJhc2g=</RecycleBinUUID></Meta>
            <Root><Group><UUID>cm9vdA==</UUID><Name>Root</Name>
            <Entry><String><Key>Title</Key><Value>Refs &amp; CDATA</Value></String>
            <String><Key>Password</Key><Value ProtectInMemory='True'>\
            <![CDATA[<&>]]>&#65;&#x1F511;&lt;&quot;&apos;</Value></String>
            <String><Key>UserName</Key><Value>a&#x20;b</Value></String>
            <String><Key>Notes</Key><Value>not imported</Value></String></Entry>
            <Entry><String><Key>Title</Key><Value>Lines</Value></String><String><Key>Password</Key><Value>one
            two</Value></String></Entry>
            <Group><UUID>dHJhc2g=</UUID><Name>Trash</Name>
            <Entry><String><Key>Title</Key><Value>Kept</Value></String>\
            <String><Key>Password</Key><Value>kept-pw</Value></String></Entry>
            </Group></Group></Root></KeePassFile>

            """.replacingOccurrences(of: "\n", with: "\r\n")
        }
        let file = stage.scratch + "/by-hand.xml"
        try sandbox.write(file, export(recycleBin: "False"), mode: 0o644)
        let imported = try importing(file)
        XCTAssertEqual(imported.status, 0, imported.errorOutput)
        XCTAssertEqual(
            imported.errorOutput, "secureroom-vault: imported 3 secrets, skipped 0 already in the vault, failed 0\n")
        let secrets = try exported()
        XCTAssertEqual(secrets["Refs & CDATA"]?.value, "<&>A\u{1F511}<\"'")
        XCTAssertEqual(secrets["Refs & CDATA"]?.attributes, ["username": "a b"])
        XCTAssertEqual(secrets["Lines"]?.value, "one\ntwo", "CR LF read as a line feed")
        XCTAssertEqual(secrets["Trash/Kept"]?.value, "kept-pw", "no recycle bin while it is disabled")
        XCTAssertEqual(secrets["Trash/Kept"]?.attributes, ["keepassxc-group": "Trash"])

        try sandbox.write(file, export(recycleBin: "True"), mode: 0o644)
        let enabled = try importing(file)
        XCTAssertEqual(
            enabled.errorOutput, "secureroom-vault: imported 0 secrets, skipped 2 already in the vault, failed 0\n",
            "Trash/Kept is not read once Trash is the recycle bin")
    }

    /// An XML export's first line.
    static let declaration = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"

    /// Malformed XML exports: (name, the file, what is said after "the XML export, line ").
    static let malformedXML: [(String, [UInt8], String)] = [
        (
            "doctype",
            Array(
                (KeePassXCXMLTests.declaration + "<!DOCTYPE KeePassFile [\n<!ENTITY a \"aaaa\">\n]>\n"
                    + "<KeePassFile>&a;</KeePassFile>\n").utf8),
            "2: a DOCTYPE is refused (no entity is declared or expanded here)"
        ),
        (
            "mismatched",
            Array((KeePassXCXMLTests.declaration + "<KeePassFile>\n<Meta>\n</Root>\n</KeePassFile>\n").utf8),
            "4: the end tag </Root> does not match <Meta> opened on line 3"
        ),
        (
            "unclosed", Array("<KeePassFile>\n<Root>\n</Root>\n".utf8),
            "4: the element <KeePassFile> opened on line 1 is not closed"
        ),
        (
            "entity", Array("<KeePassFile>\n&nbsp;</KeePassFile>".utf8),
            "2: an entity is refused: only &lt; &gt; &amp; &apos; &quot; are read"
        ),
        ("utf8", Array("<KeePassFile>\n\n".utf8) + [0xC3, 0x28], "3: the file is not UTF-8"),
        (
            "control", Array("<KeePassFile>\n\u{1}</KeePassFile>".utf8),
            "2: the character U+0001 is not allowed in XML"
        ),
        (
            "beyond", Array("<KeePassFile>&#1114112;".utf8),
            "1: the character reference &#1114112; is not a character XML allows"
        ),
        (
            "surrogate", Array("<KeePassFile>&#xD800;".utf8),
            "1: the character reference &#xD800; is not a character XML allows"
        ),
        (
            "unquoted", Array("<KeePassFile>\n<Meta a=1/></KeePassFile>".utf8),
            "2: the value of the attribute a is not in quotes"
        ),
        (
            "twice", Array("<KeePassFile>\n<Meta a='1' a=\"1\"/>".utf8),
            "2: the attribute a is given twice in <Meta>"
        ),
        (
            "latin1", Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><KeePassFile/>".utf8),
            "1: the file declares the encoding ISO-8859-1; only UTF-8 is read"
        ),
        (
            "deep",
            Array(
                (KeePassXCXMLTests.declaration + String(repeating: "<x>", count: 257)
                    + String(repeating: "</x>", count: 257)).utf8),
            "2: elements are nested more than 256 deep"
        ),
        (
            "protected",
            Array(
                (KeePassXCXMLTests.declaration + "<KeePassFile><Root><Group><Name>Root</Name><Entry>\n<String>"
                    + "<Key>Password</Key><Value Protected=\"True\">bm90IGNsZWFy</Value></String></Entry>"
                    + "</Group></Root></KeePassFile>").utf8),
            "3: the entry's Password is encrypted (Protected=\"True\"): this is the XML inside a .kdbx "
                + "file, not an export; export the database to XML with KeePassXC"
        ),
    ]

    /// The same files, read in this process by the reader the tool wraps
    /// (`SecureRoomImport.KeePassXCXML`): each is refused with the same line and words.
    func testTheReaderRefusesMalformedXMLInProcess() throws {
        for (name, bytes, message) in Self.malformedXML {
            XCTAssertThrowsError(try KeePassXCXML(bytes), name) { error in
                XCTAssertEqual(error as? VaultError, .invalid("the XML export, line \(message)"), name)
            }
        }
    }

    /// Malformed XML is refused whole, with the line and what is wrong, and nothing is
    /// stored: a DOCTYPE (an entity declaration with it), tags that do not match, an
    /// element left open, an entity XML does not predefine, bytes that are not UTF-8, a
    /// character XML does not allow, character references outside Unicode or to a
    /// surrogate, attributes without quotes or given twice, another encoding, elements 257
    /// deep (256 are read: that file is refused only for not being KeePassXC's), and a
    /// value encrypted by a .kdbx inner stream (Protected="True").
    func testRefusesMalformedXMLNamingTheLine() throws {
        let declaration = Self.declaration
        let cases = Self.malformedXML
        var files: [String] = []
        for (name, bytes, _) in cases {
            files.append(stage.scratch + "/\(name).xml")
            XCTAssertTrue(FileManager.default.createFile(atPath: files[files.count - 1], contents: Data(bytes)))
        }
        let deepest = stage.scratch + "/deepest.xml"
        try sandbox.write(
            deepest, declaration + String(repeating: "<x>", count: 256) + String(repeating: "</x>", count: 256),
            mode: 0o644)
        // One namespace for all: a line each, the status and what the tool said.
        let result = try stage.run(
            as: uid, "/bin/sh",
            [
                "-c", "for f; do out=$(\"$0\" import --from keepassxc \"$f\" 2>&1); echo \"$?:$out\"; done",
                stage.bin + "/secureroom-vault",
            ] + files + [deepest],
            environment: ["XDG_DATA_HOME": stage.scratch + "/data-\(uid)", "HOME": stage.scratch])
        let lines = result.lines
        XCTAssertEqual(lines.count, cases.count + 1, result.output)
        for (line, (name, _, message)) in zip(lines, cases) {
            XCTAssertEqual(line, "1:secureroom-vault: the XML export, line \(message)", name)
        }
        XCTAssertEqual(lines.last, "1:secureroom-vault: not a KeePassXC XML export: its root element is <x>", "read")
        XCTAssertEqual(try exported().count, 0, "nothing stored")
    }

    /// What a file may hold before `import --from keepassxc` refuses it, naming the limit:
    /// attributes per element, a name's length, an attribute value's length and entries in
    /// the XML export; columns and rows in the CSV export. (The longer limits, of texts,
    /// fields and lines, are crossed by the fuzzers' seeds, with small limits.)
    func testRefusesWhatExceedsTheImportLimits() throws {
        let declaration = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let attributes = (0..<17).map { " a\($0)=\"v\"" }.joined()
        let entries = String(repeating: "<Entry/>", count: 100_001)
        let header = "\"Group\",\"Title\",\"Username\",\"Password\",\"URL\""
        // (name, the file, what the tool says after "secureroom-vault: ").
        let cases: [(String, String, String)] = [
            (
                "attributes.xml", declaration + "<KeePassFile\(attributes)/>\n",
                "the XML export, line 2: more than 16 attributes in <KeePassFile>"
            ),
            (
                "name.xml", declaration + "<" + String(repeating: "n", count: 257) + "/>\n",
                "the XML export, line 2: a name longer than 256 bytes"
            ),
            (
                "attribute.xml", declaration + "<KeePassFile a=\"" + String(repeating: "v", count: 4097) + "\"/>\n",
                "the XML export, line 2: the value of the attribute a is longer than 4096 bytes"
            ),
            (
                "entries.xml",
                declaration + "<KeePassFile><Root><Group><Name>Root</Name>\n\(entries)</Group></Root></KeePassFile>\n",
                "the XML export, line 3: more than 100000 entries"
            ),
            (
                "columns.csv", header + (0..<60).map { ",\"c\($0)\"" }.joined() + "\n",
                "the KeePassXC export, line 1: more than 64 columns"
            ),
            (
                "rows.csv", header + "\n" + String(repeating: "\"Root\",\"t\",\"\",\"p\",\"\"\n", count: 100_001),
                "the KeePassXC export has more than 100000 entries"
            ),
        ]
        var files: [String] = []
        for (name, text, _) in cases {
            files.append(stage.scratch + "/" + name)
            try sandbox.write(files[files.count - 1], text, mode: 0o644)
        }
        let result = try stage.run(
            as: uid, "/bin/sh",
            [
                "-c", "for f; do out=$(\"$0\" import --from keepassxc \"$f\" 2>&1); echo \"$?:$out\"; done",
                stage.bin + "/secureroom-vault",
            ] + files,
            environment: ["XDG_DATA_HOME": stage.scratch + "/data-\(uid)", "HOME": stage.scratch])
        XCTAssertEqual(result.lines.count, cases.count, result.output)
        for (line, (name, _, message)) in zip(result.lines, cases) {
            XCTAssertEqual(line, "1:secureroom-vault: " + message, name)
        }
        XCTAssertEqual(try exported().count, 0, "nothing stored")
    }
}
