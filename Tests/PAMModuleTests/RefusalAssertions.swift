// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import SecureRoomTestSupport
import XCTest

/// Asserts that the module refused a PIN before asking for it: PAM_AUTHINFO_UNAVAIL (the
/// stack goes on to the password), no prompt, and exactly `errors` told, in order.
func XCTAssertRefusedBeforeAsking(
    _ run: PAMTranscript, errors: [String], _ why: String = "", file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertEqual(
        run.code, PAMCode.authInfoUnavailable, "the stack goes on to the password. \(why)", file: file, line: line)
    XCTAssertEqual(run.prompts, [], "refused before asking. \(why)", file: file, line: line)
    XCTAssertEqual(run.errors, errors, why, file: file, line: line)
}
