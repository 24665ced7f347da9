// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// The release the tools report with `--version`: debian/changelog's newest version, the
/// one source of it (NEWS.md's newest heading is the same; DocumentationTests checks both).
public let releaseVersion = "0.3.0"
