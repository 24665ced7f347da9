// swift-tools-version: 6.1
// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0
//
// SecureRoom for Linux: a PIN authentication stack.
//
//   pam_secureroom.so   PAM module (PAMSecureRoom + CSecureRoomPAM shim)
//   secureroom          admin tool (SecureRoomAdmin)
//   secureroom-helper   setuid-root helper for callers without root (SecureRoomHelper)
//   secureroom-vault    the user's secrets, unlocked by the PIN (SecureRoomVaultTool + SecureRoomVault),
//                       and `serve`, their Secret Service provider (SecureRoomSecretService)
//   SecureRoomCore      records, argon2id, pepper, policy, lockout, TPM, protected directory
//   SecureRoomBase      what the vault and its provider share with the core, without argon2 or tss2
//
// Release artifacts are made by scripts/build, which adds the link flags the PAM
// module needs (static Swift runtime, version script, -z nodelete); see docs/DESIGN.md §2.
import PackageDescription

let testSettings: [SwiftSetting] = [.swiftLanguageMode(.v5)]

// The module, the helper and what they link do without the Regex library (_StringProcessing, ~1.5 MB of the
// module): the compiler would otherwise import it implicitly into every file.
let withoutRegex: [SwiftSetting] = [.unsafeFlags(["-Xfrontend", "-disable-implicit-string-processing-module-import"])]

let package = Package(
    name: "SecureRoom",
    products: [
        .library(name: "pam_secureroom", type: .dynamic, targets: ["PAMSecureRoom"]),
        .executable(name: "secureroom", targets: ["SecureRoomAdmin"]),
        .executable(name: "secureroom-helper", targets: ["SecureRoomHelper"]),
        .executable(name: "secureroom-vault", targets: ["SecureRoomVaultTool"]),
        .executable(name: "secureroom-pam-driver", targets: ["PAMDriver"]),
        // For the libFuzzer harnesses in Fuzz/ (a separate package that depends on this one).
        .library(name: "SecureRoomCore", targets: ["SecureRoomCore"]),
        .library(name: "SecureRoomVault", targets: ["SecureRoomVault"]),
        .library(name: "SecureRoomImport", targets: ["SecureRoomImport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2")
    ],
    targets: [
        // libargon2 (Debian: libargon2-dev).
        .systemLibrary(
            name: "CArgon2", pkgConfig: "libargon2",
            providers: [.apt(["libargon2-dev"])]),
        // One-line C wrappers for syscalls Swift cannot call directly (variadic, macros).
        .target(name: "CSecureRoomSystem"),
        // The module's C, all of it: the core's pam_sm_* entry points and the wrappers for
        // libpam's variadic calls (shim.c); and front/, the small pam_secureroom.so PAM
        // loads, which loads the core (scripts/build compiles it apart, with its version script).
        .target(
            name: "CSecureRoomPAM", exclude: ["front"],
            linkerSettings: [.linkedLibrary("pam")]),
        // libkeyutils (Debian: libkeyutils-dev): the kernel keyring holds unlocked vault keys.
        .systemLibrary(
            name: "CKeyutils", pkgConfig: "libkeyutils",
            providers: [.apt(["libkeyutils-dev"])]),
        // SHA-256, HMAC, HKDF and ChaCha20-Poly1305 from the system's Nettle (Debian:
        // nettle-dev; GnuTLS's crypto library): no embedded crypto library.
        .target(
            name: "CSecureRoomCrypto",
            linkerSettings: [.linkedLibrary("nettle")]),
        // tpm2-tss ESAPI (Debian: libtss2-dev: esys, mu, rc, tctildr), opened with dlopen at
        // the first TPM call: its headers, and one-line forwarders (docs/DESIGN.md §2).
        .target(name: "CTSS2", dependencies: ["CSecureRoomSystem"]),
        // What every other target builds on, without libargon2 or tss2: secret bytes,
        // sealing (Nettle), hex, file descriptors, user names, time, the error type.
        .target(
            name: "SecureRoomBase", dependencies: ["CSecureRoomSystem", "CSecureRoomCrypto"],
            swiftSettings: withoutRegex),
        // The chip's ESAPI layer: one type per TPM object or command family (connection,
        // sessions, the storage key, PIN counters, sealing, hierarchies), over CTSS2 and the
        // base only; it knows nothing of records or users (docs/DESIGN.md §11).
        .target(
            name: "TPMESAPI", dependencies: ["SecureRoomBase", "CTSS2"],
            swiftSettings: withoutRegex),
        // PINs: records, argon2id, policy, lockout, binding PINs to the TPM (over TPMESAPI),
        // the helper protocol, vault keys. Re-exports SecureRoomBase and TPMESAPI.
        .target(
            name: "SecureRoomCore",
            dependencies: [
                "SecureRoomBase", "TPMESAPI", "CArgon2", "CKeyutils", "CSecureRoomSystem", "CSecureRoomCrypto", "CTSS2",
            ],
            swiftSettings: withoutRegex),
        .target(
            name: "PAMSecureRoom",
            dependencies: ["SecureRoomCore", "CSecureRoomPAM"],
            swiftSettings: withoutRegex),
        .target(
            name: "SecureRoomProgramSupport",
            dependencies: ["SecureRoomCore", "CSecureRoomSystem"],
            swiftSettings: withoutRegex),
        // What the two command-line tools share on top of it: exit statuses, error
        // reports, JSON output (ArgumentParser, FoundationEssentials; never the helper).
        .target(
            name: "SecureRoomCommandLine",
            dependencies: [
                "SecureRoomProgramSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "SecureRoomAdmin",
            dependencies: [
                "SecureRoomCore", "SecureRoomProgramSupport", "SecureRoomCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // Runs before the Swift runtime in the setuid helper: environment, descriptors.
        .target(name: "CSecureRoomHelperStartup"),
        .executableTarget(
            name: "SecureRoomHelper",
            dependencies: ["SecureRoomCore", "SecureRoomProgramSupport", "CSecureRoomHelperStartup", "CPAMClient"],
            swiftSettings: withoutRegex),
        // libsqlite3 (Debian: libsqlite3-dev), the vault's storage.
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        // The vault store, on SQLite's C API. Only the vault tool links it; the module
        // never does (docs/DESIGN.md §2).
        .target(
            name: "SecureRoomVault",
            dependencies: ["SecureRoomBase", "CSQLite"]),
        // sd-bus from libsystemd (Debian: libsystemd-dev): the session bus `serve` speaks on,
        // opened with dlopen at its first call (its header, and one-line forwarders).
        .target(name: "CSDBus", dependencies: ["CSecureRoomSystem"]),
        // The Secret Service's transfer algorithm (DH group 2, AES-128-CBC) from OpenSSL 3's
        // libcrypto (Debian: libssl-dev), opened with dlopen at its first call.
        .target(name: "CSecureRoomTransferCrypto", dependencies: ["CSecureRoomSystem"]),
        // The Secret Service provider over the vault (docs/DESIGN.md §14): `secureroom-vault serve`.
        .target(
            name: "SecureRoomSecretService",
            dependencies: [
                "SecureRoomBase", "SecureRoomVault", "CSDBus", "CSecureRoomTransferCrypto", "CSecureRoomCrypto",
                "CSecureRoomSystem",
            ]),
        // libpam as an application (`secureroom-vault unlock`, the helper's password check),
        // opened with dlopen at its first call (its header, and one-line forwarders).
        .target(name: "CPAMClient", dependencies: ["CSecureRoomSystem"]),
        // The readers of the exports `secureroom-vault import` takes (KeePassXC's XML and
        // CSV), with their limits: a library, so that the fuzzers (Fuzz/) link them.
        .target(name: "SecureRoomImport", dependencies: ["SecureRoomBase", "SecureRoomVault", "CSecureRoomSystem"]),
        .executableTarget(
            name: "SecureRoomVaultTool",
            dependencies: [
                "SecureRoomCore", "SecureRoomVault", "SecureRoomProgramSupport", "SecureRoomCommandLine",
                "SecureRoomSecretService", "SecureRoomImport", "CPAMClient", "CSecureRoomSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // Test driver: runs one PAM transaction from a private config directory
        // (pam_start_confdir) and reports every conversation message and return code.
        .executableTarget(
            name: "PAMDriver", path: "Tests/PAMDriver",
            linkerSettings: [.linkedLibrary("pam")]),
        // Shared by the test targets: subprocesses, temporary state, built artifacts.
        // Test code runs subprocesses from Dispatch; Swift 5 mode keeps it plain.
        .target(
            name: "SecureRoomTestSupport", dependencies: ["SecureRoomBase"], path: "Tests/SecureRoomTestSupport",
            swiftSettings: testSettings),
        .testTarget(
            name: "SecureRoomCoreTests", dependencies: ["SecureRoomCore", "TPMESAPI", "SecureRoomTestSupport"],
            swiftSettings: testSettings),
        .testTarget(
            name: "PAMModuleTests", dependencies: ["SecureRoomTestSupport"],
            exclude: ["Fixtures"], swiftSettings: testSettings),
        .testTarget(
            name: "AdminToolTests", dependencies: ["SecureRoomTestSupport", "SecureRoomAdmin", "SecureRoomCore"],
            swiftSettings: testSettings),
        .testTarget(
            name: "HelperTests", dependencies: ["SecureRoomTestSupport"],
            swiftSettings: testSettings),
        // secureroom-vault as a program: the vault's commands, unlock, recovery, imports.
        .testTarget(
            name: "VaultToolTests", dependencies: ["SecureRoomTestSupport", "SecureRoomImport", "SecureRoomVault"],
            swiftSettings: testSettings),
        // The repository itself: documentation against the code, man pages, licences,
        // the install script.
        .testTarget(
            name: "RepositoryTests", dependencies: ["SecureRoomTestSupport", "SecureRoomCore"],
            swiftSettings: testSettings),
        .testTarget(
            name: "TPMTests", dependencies: ["SecureRoomCore", "TPMESAPI", "CTSS2", "SecureRoomTestSupport"],
            swiftSettings: testSettings),
        .testTarget(
            name: "SecretServiceTests",
            dependencies: [
                "SecureRoomSecretService", "SecureRoomVault", "SecureRoomCore", "CSecureRoomTransferCrypto",
                "CSecureRoomCrypto",
            ],
            swiftSettings: testSettings),
        .testTarget(
            name: "SecureRoomVaultTests",
            dependencies: ["SecureRoomVault", "SecureRoomCore", "SecureRoomTestSupport"],
            swiftSettings: testSettings),
    ]
)
