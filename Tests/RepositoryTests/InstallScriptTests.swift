// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// scripts/install and scripts/uninstall on a staging root (--destdir): what goes where,
/// and that --purge says what it will delete and deletes nothing unconfirmed.
final class InstallScriptTests: XCTestCase {
    /// The Secret Service provider's files for the default prefix (/usr/local).
    private let unitPath = "/usr/local/lib/systemd/user/secureroom-secrets.service"
    private let activationPath = "/usr/local/share/dbus-1/services/org.freedesktop.secrets.secureroom.service"

    /// The unit and the activation file under `stage` run `vault` (the installed tool, not
    /// the package's /usr/bin/secureroom-vault that the repository's files name).
    private func checkProviderFiles(
        stage: String, unit: String, activation: String, vault: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let unitText = try String(contentsOfFile: stage + unit, encoding: .utf8)
        let activationText = try String(contentsOfFile: stage + activation, encoding: .utf8)
        for expected in [
            "\nType=dbus\n", "\nBusName=org.freedesktop.secrets\n", "\nExecStart=\(vault) serve\n",
            "\nRestartPreventExitStatus=5 6\n",
        ] {
            XCTAssertTrue(unitText.contains(expected), "\(unit) lacks \(expected)", file: file, line: line)
        }
        for expected in [
            "\n[D-BUS Service]\n", "\nName=org.freedesktop.secrets\n", "\nExec=\(vault) serve\n",
            "\nSystemdService=secureroom-secrets.service\n",
        ] {
            XCTAssertTrue(activationText.contains(expected), "\(activation) lacks \(expected)", file: file, line: line)
        }
        if vault != "/usr/bin/secureroom-vault" {
            XCTAssertFalse((unitText + activationText).contains("/usr/bin/secureroom-vault"), file: file, line: line)
        }
        XCTAssertFalse(unitText.contains("[Install]"), "not enabled anywhere: D-Bus starts it", file: file, line: line)
        for path in [unit, activation] {
            let mode = try FileManager.default.attributesOfItem(atPath: stage + path)[.posixPermissions] as? Int
            XCTAssertEqual(mode, 0o644, path, file: file, line: line)
        }
    }

    func testUninstallPurgeListsWhatItDeletesAndNeedsConfirmation() throws {
        let stage = try Sandbox().root + "/stage"
        let install = try runProgram(Artifacts.root + "/scripts/install", ["--destdir", stage, "--no-build"])
        XCTAssertEqual(install.status, 0, install.errorOutput)
        for path in [
            "/usr/local/bin/secureroom", "/usr/local/bin/secureroom-vault", "/usr/sbin/secureroom-helper",
            "/etc/pam.d/secureroom-enrol", "/usr/share/pam-configs/secureroom-enrol",
        ] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: stage + path), path)
        }
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: stage + "/usr/local/sbin/secureroom"), "on users' PATH, not sbin")
        try checkProviderFiles(
            stage: stage, unit: unitPath, activation: activationPath,
            vault: "/usr/local/bin/secureroom-vault")
        let users = stage + "/var/lib/secureroom/users"
        try FileManager.default.createDirectory(atPath: users, withIntermediateDirectories: true)
        for file in ["../pepper", "alice.credential", "alice.recovery", "bob.credential"] {
            XCTAssertTrue(FileManager.default.createFile(atPath: users + "/" + file, contents: Data()))
        }

        let refused = try runProgram(Artifacts.root + "/scripts/uninstall", ["--destdir", stage, "--purge"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.output.contains("uninstall:   PINs of: alice bob\n"), refused.output)
        XCTAssertTrue(refused.output.contains("uninstall:   vault recovery records of: alice "), refused.output)
        XCTAssertEqual(
            refused.errorOutput,
            "uninstall: error: --purge needs --yes when standard input is not a terminal; nothing was removed\n")
        XCTAssertTrue(FileManager.default.fileExists(atPath: users + "/alice.credential"), "nothing removed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: stage + "/usr/local/bin/secureroom"), "nothing removed")

        let kept = try runProgram(Artifacts.root + "/scripts/uninstall", ["--destdir", stage])
        XCTAssertEqual(kept.status, 0, kept.errorOutput)
        XCTAssertTrue(kept.output.contains("kept       \(stage)/var/lib/secureroom (remove with --purge)"), kept.output)
        XCTAssertTrue(kept.output.contains("removed    \(stage)/usr/local/bin/secureroom\n"), kept.output)
        for path in [unitPath, activationPath] {
            XCTAssertTrue(kept.output.contains("removed    \(stage)\(path)\n"), kept.output)
            XCTAssertFalse(FileManager.default.fileExists(atPath: stage + path), path)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: users + "/alice.recovery"))

        let purged = try runProgram(Artifacts.root + "/scripts/uninstall", ["--destdir", stage, "--purge", "--yes"])
        XCTAssertEqual(purged.status, 0, purged.errorOutput)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stage + "/var/lib/secureroom"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: stage + "/etc/security/secureroom.conf"))
    }

    /// The unit and activation file go where systemd --user and dbus-daemon read them:
    /// PREFIX/lib/systemd/user and PREFIX/share/dbus-1/services for /usr and /usr/local,
    /// /etc/systemd/user and /usr/local/share/dbus-1/services for any other prefix.
    func testSecretServiceFilesFollowThePrefix() throws {
        let sandbox = try Sandbox()
        for (prefix, unit, activation) in [
            (
                "/usr", "/usr/lib/systemd/user/secureroom-secrets.service",
                "/usr/share/dbus-1/services/org.freedesktop.secrets.secureroom.service"
            ),
            (
                "/opt/secureroom", "/etc/systemd/user/secureroom-secrets.service",
                "/usr/local/share/dbus-1/services/org.freedesktop.secrets.secureroom.service"
            ),
        ] {
            let stage = sandbox.root + "/stage" + prefix.replacingOccurrences(of: "/", with: "-")
            let install = try runProgram(
                Artifacts.root + "/scripts/install",
                ["--destdir", stage, "--no-build", "--prefix", prefix])
            XCTAssertEqual(install.status, 0, install.errorOutput)
            try checkProviderFiles(
                stage: stage, unit: unit, activation: activation, vault: prefix + "/bin/secureroom-vault")
            let manifest = try String(contentsOfFile: stage + "/usr/share/secureroom/installed", encoding: .utf8)
            XCTAssertTrue(manifest.contains("unit=\(unit)\nactivation=\(activation)\n"), manifest)

            let uninstall = try runProgram(Artifacts.root + "/scripts/uninstall", ["--destdir", stage])
            XCTAssertEqual(uninstall.status, 0, uninstall.errorOutput)
            for path in [unit, activation] {
                XCTAssertFalse(FileManager.default.fileExists(atPath: stage + path), "\(prefix): \(path)")
            }
        }
    }

    /// The drop-in for polkit's sandboxed agent helper (pam/polkit-agent-helper.conf) goes
    /// where systemd reads system units' drop-ins: PREFIX/lib/systemd/system for /usr and
    /// /usr/local, /etc/systemd/system for any other prefix; the manifest records it and
    /// scripts/uninstall removes it with its directory.
    func testPolkitAgentHelperDropInFollowsThePrefix() throws {
        let sandbox = try Sandbox()
        let source = try String(contentsOfFile: Artifacts.root + "/pam/polkit-agent-helper.conf", encoding: .utf8)
        let name = "polkit-agent-helper@.service.d/secureroom.conf"
        for (prefix, dropIn) in [
            ("/usr", "/usr/lib/systemd/system/" + name), ("/usr/local", "/usr/local/lib/systemd/system/" + name),
            ("/opt/secureroom", "/etc/systemd/system/" + name),
        ] {
            let stage = sandbox.root + "/dropin" + prefix.replacingOccurrences(of: "/", with: "-")
            let install = try runProgram(
                Artifacts.root + "/scripts/install", ["--destdir", stage, "--no-build", "--prefix", prefix])
            XCTAssertEqual(install.status, 0, install.errorOutput)
            XCTAssertEqual(try String(contentsOfFile: stage + dropIn, encoding: .utf8), source, prefix)
            let manifest = try String(contentsOfFile: stage + "/usr/share/secureroom/installed", encoding: .utf8)
            XCTAssertTrue(manifest.contains("dropin=\(dropIn)\n"), manifest)

            let uninstall = try runProgram(Artifacts.root + "/scripts/uninstall", ["--destdir", stage])
            XCTAssertEqual(uninstall.status, 0, uninstall.errorOutput)
            XCTAssertFalse(FileManager.default.fileExists(atPath: stage + dropIn), prefix)
            XCTAssertFalse(
                FileManager.default.fileExists(atPath: stage + (dropIn as NSString).deletingLastPathComponent), prefix)
        }
    }
}
