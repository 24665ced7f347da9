// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import XCTest

@testable import SecureRoomBase
@testable import SecureRoomCore

/// Messages through gettext: values by name, English for log lines whatever the catalogue
/// says, and the text a user sees when no catalogue is installed (the tests' C locale).
/// The German catalogue itself is shown end to end through su (Tests/e2e/su-sudo.sh).
final class LocalizedTests: XCTestCase {
    func testValuesReplaceTheirNamesOnceAndOtherBracesStay() {
        XCTAssertEqual(
            Localized.substitute(
                [(key: "user", value: "{path}"), (key: "path", value: "/x")], in: "{user} at {path}, {other} {"),
            "{path} at /x, {other} {")
        XCTAssertEqual(Localized.substitute([(key: "a", value: "1")], in: "{a}{a}}{"), "11}{")
        XCTAssertEqual(Localized.substitute([(key: String, value: String)](), in: "{a}"), "{a}")
    }

    func testEnglishIsTheSourceTextWithItsValues() {
        let translate = Translation.english
        XCTAssertEqual(translate("{user} has no PIN", ["user": "alice"]), "alice has no PIN")
        XCTAssertEqual(
            SecureRoomError.notEnrolled(user: "alice").description, "alice has no PIN")
        XCTAssertEqual(PINPolicy.Rejection.constantStep(-1).description, "a sequence (constant step of -1)")
    }

    func testWithoutACatalogueUsersReadTheEnglishText() {
        XCTAssertEqual(
            localized("Vault unlocked for {duration}.", ["duration": "15 min"]), "Vault unlocked for 15 min.")
        XCTAssertEqual(
            localized(
                "{count} attempt left before the PIN is disabled.",
                plural: "{count} attempts left before the PIN is disabled.", count: 1),
            "1 attempt left before the PIN is disabled.")
        XCTAssertEqual(
            SecureRoomError.stateMissing(path: "/x").localizedDescription, "/x does not exist (run 'secureroom init')")
        XCTAssertEqual(
            Messages.text(
                for: .incorrect(
                    .open(failures: 1, untilDelay: NextDelay(attempts: 4, delay: 60), untilDisabled: 9),
                    vaultErased: false)),
            "Incorrect PIN. 4 attempts left before a 1-minute delay.")
        XCTAssertEqual(Localized.lookUp("a text no catalogue has"), "a text no catalogue has")
    }
}
