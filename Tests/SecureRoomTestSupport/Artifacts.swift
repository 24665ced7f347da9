// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The release artifacts under test, as `scripts/build` makes them (tests exercise
/// what gets installed, not a debug variant).
public enum Artifacts {
    /// The repository root.
    public static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// Directory of the release build.
    public static let releaseDirectory =
        ProcessInfo.processInfo.environment["SECUREROOM_BUILD_DIR"]
        ?? root + "/.build/release"

    /// pam_secureroom.so.
    public static let module = releaseDirectory + "/pam_secureroom.so"
    /// pam_secureroom_core.so, which the module loads from beside itself.
    public static let moduleCore = releaseDirectory + "/pam_secureroom_core.so"
    /// The secureroom admin tool.
    public static let cli = releaseDirectory + "/secureroom"
    /// The pam_start_confdir driver.
    public static let driver = releaseDirectory + "/secureroom-pam-driver"
    /// The setuid helper (built without the setuid bit; tests install a copy).
    public static let helper = releaseDirectory + "/secureroom-helper"
    /// The vault tool.
    public static let vault = releaseDirectory + "/secureroom-vault"

    /// Throws with a clear message if `scripts/build` has not been run.
    public static func require() throws {
        for path in [module, cli, driver, helper, vault]
        where !FileManager.default.isExecutableFile(atPath: path) && !FileManager.default.fileExists(atPath: path) {
            throw ArtifactMissing(path: path)
        }
    }

    /// A missing artifact.
    public struct ArtifactMissing: Error, CustomStringConvertible {
        /// The path that does not exist.
        public let path: String
        /// Explanation.
        public var description: String { "\(path) is missing: run scripts/build first" }
    }
}
