// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// SecureRoom is Apache-2.0: the LICENSE file, a licence line in every source file, and
/// the Debian copyright file saying so for the packages.
final class LicenceTests: XCTestCase {
    private func text(_ path: String) throws -> String {
        try String(contentsOfFile: Artifacts.root + "/" + path, encoding: .utf8)
    }

    func testTheLicenceFileIsApacheTwo() throws {
        let licence = try text("LICENSE")
        XCTAssertTrue(licence.contains("Apache License\n                           Version 2.0, January 2004"))
        if let debian = try? String(contentsOfFile: "/usr/share/common-licenses/Apache-2.0", encoding: .utf8) {
            XCTAssertEqual(licence, debian, "LICENSE differs from Debian's copy of the Apache License 2.0")
        }
    }

    /// Every tracked source file, and every tracked script (a `#!` first line), names its
    /// licence with an SPDX line.
    func testEverySourceFileNamesItsLicence() throws {
        let listing = try runProgram("/usr/bin/git", ["-C", Artifacts.root, "ls-files", "-z"])
        XCTAssertEqual(listing.status, 0, listing.errorOutput)
        let files = listing.output.split(separator: "\0").map(String.init)
        var checked = 0
        var missing: [String] = []
        for file in files {
            guard let data = FileManager.default.contents(atPath: Artifacts.root + "/" + file) else { continue }
            let isSource = [".swift", ".c", ".h", ".sh", ".py"].contains { file.hasSuffix($0) }
            guard isSource || data.starts(with: Array("#!".utf8)) else { continue }
            checked += 1
            if !String(decoding: data, as: UTF8.self).contains("SPDX-License-Identifier: Apache-2.0") {
                missing.append(file)
            }
        }
        XCTAssertGreaterThan(checked, 250)
        XCTAssertEqual(missing, [], "files without an SPDX licence line")
    }

    /// debian/copyright is machine-readable (copyright-format 1.0) and gives SecureRoom's
    /// own files Apache-2.0, with the licence's paragraph.
    func testTheDebianCopyrightFileNamesTheLicence() throws {
        let copyright = try text("debian/copyright")
        XCTAssertTrue(
            copyright.hasPrefix("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"))
        XCTAssertTrue(copyright.contains("\nFiles: *\nCopyright: 2026 SecureRoom authors\nLicense: Apache-2.0\n"))
        XCTAssertTrue(copyright.contains("\nLicense: Apache-2.0\n Licensed under the Apache License, Version 2.0"))
        XCTAssertTrue(copyright.contains("/usr/share/common-licenses/Apache-2.0"))
        XCTAssertFalse(copyright.contains("All rights are\n reserved"))
    }
}
