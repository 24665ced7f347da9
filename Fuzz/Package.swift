// swift-tools-version: 6.1
// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0
//
// libFuzzer harnesses for the parsers of untrusted bytes in SecureRoom (docs/DESIGN.md §10).
// One executable per parser; each defines LLVMFuzzerTestOneInput and gets its `main`
// from libFuzzer, so the targets are built as libraries (-parse-as-library) and linked
// with the fuzzer and address sanitizers given on the command line:
//
//     swift build --sanitize fuzzer --sanitize address   (run from Fuzz/)
//
// Debug builds keep @testable imports working: several parsers are internal.
import PackageDescription

/// The fuzzers, named after the parser they drive, and the libraries they link besides
/// SecureRoomCore; `Corpus/<name>/` holds their seeds.
let fuzzers: [(name: String, libraries: [String])] = [
    ("FuzzRecordText", []),
    ("FuzzCredentialRecord", []),
    ("FuzzLockoutRecord", []),
    ("FuzzRecoveryRecord", []),
    ("FuzzPepper", []),
    ("FuzzBlocklist", []),
    ("FuzzConfiguration", []),
    ("FuzzHelperReply", []),
    ("FuzzHelperSecrets", []),
    ("FuzzPINFormat", []),
    ("FuzzVaultKey", []),
    ("FuzzVaultCipher", ["SecureRoomVault"]),
    ("FuzzKeePassXCXML", ["SecureRoomVault", "SecureRoomImport"]),
    ("FuzzKeePassXCCSV", ["SecureRoomVault", "SecureRoomImport"]),
]

let swiftSettings: [SwiftSetting] = [.swiftLanguageMode(.v5), .unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "SecureRoomFuzz",
    dependencies: [
        .package(name: "SecureRoom", path: "..")
    ],
    targets: [
        // Input splitting, test-vector constants and the check that traps on a violated property.
        .target(
            name: "FuzzSupport", dependencies: [.product(name: "SecureRoomCore", package: "SecureRoom")],
            swiftSettings: [.swiftLanguageMode(.v5)])
    ]
        + fuzzers.map { fuzzer in
            .executableTarget(
                name: fuzzer.name,
                dependencies: ["FuzzSupport", .product(name: "SecureRoomCore", package: "SecureRoom")]
                    + fuzzer.libraries.map { .product(name: $0, package: "SecureRoom") },
                swiftSettings: swiftSettings)
        }
)
