// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

// secureroom-helper: a non-root caller's own PIN check, change or vault set-up (HelperMain.swift).
import Glibc

exit(HelperMain.run(arguments: CommandLine.arguments).rawValue)
