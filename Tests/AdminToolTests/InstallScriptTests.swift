import Foundation
import SecureRoomTestSupport
import XCTest

/// scripts/install and scripts/uninstall on a staging root (--destdir): what goes where,
/// and that --purge says what it will delete and deletes nothing unconfirmed.
final class InstallScriptTests: XCTestCase {
    func testUninstallPurgeListsWhatItDeletesAndNeedsConfirmation() throws {
        let stage = try Sandbox().root + "/stage"
        let install = try runProgram(Artifacts.root + "/scripts/install", ["--destdir", stage, "--no-build"])
        XCTAssertEqual(install.status, 0, install.errorOutput)
        for path in ["/usr/local/bin/secureroom", "/usr/local/bin/secureroom-vault", "/usr/sbin/secureroom-helper",
                     "/etc/pam.d/secureroom-enrol", "/usr/share/pam-configs/secureroom-enrol"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: stage + path), path)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: stage + "/usr/local/sbin/secureroom"), "on users' PATH, not sbin")
        let users = stage + "/var/lib/secureroom/users"
        try FileManager.default.createDirectory(atPath: users, withIntermediateDirectories: true)
        for file in ["../pepper", "alice.credential", "alice.recovery", "bob.credential"] {
            XCTAssertTrue(FileManager.default.createFile(atPath: users + "/" + file, contents: Data()))
        }

        let refused = try runProgram(Artifacts.root + "/scripts/uninstall", ["--destdir", stage, "--purge"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.output.contains("uninstall:   PINs of: alice bob\n"), refused.output)
        XCTAssertTrue(refused.output.contains("uninstall:   vault recovery records of: alice "), refused.output)
        XCTAssertEqual(refused.errorOutput,
                       "uninstall: error: --purge needs --yes when standard input is not a terminal; nothing was removed\n")
        XCTAssertTrue(FileManager.default.fileExists(atPath: users + "/alice.credential"), "nothing removed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: stage + "/usr/local/bin/secureroom"), "nothing removed")

        let kept = try runProgram(Artifacts.root + "/scripts/uninstall", ["--destdir", stage])
        XCTAssertEqual(kept.status, 0, kept.errorOutput)
        XCTAssertTrue(kept.output.contains("kept       \(stage)/var/lib/secureroom (remove with --purge)"), kept.output)
        XCTAssertTrue(kept.output.contains("removed    \(stage)/usr/local/bin/secureroom\n"), kept.output)
        XCTAssertTrue(FileManager.default.fileExists(atPath: users + "/alice.recovery"))

        let purged = try runProgram(Artifacts.root + "/scripts/uninstall", ["--destdir", stage, "--purge", "--yes"])
        XCTAssertEqual(purged.status, 0, purged.errorOutput)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stage + "/var/lib/secureroom"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: stage + "/etc/security/secureroom.conf"))
    }
}
