// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc

/// A progress bar for `import` on standard error, drawn only when it is a terminal:
/// "importing: [#########...........]  45/100", redrawn in place, erased at the end.
struct ImportProgress {
    /// How many steps there are.
    let total: Int
    /// What is being done ("reading", "checking").
    let activity: String
    private let shown = isatty(STDERR_FILENO) == 1

    /// A bar for `total` steps of `activity`.
    init(total: Int, activity: String) {
        self.total = total
        self.activity = activity
    }

    /// Shows that `done` steps are done.
    func update(_ done: Int) {
        guard shown, total > 0 else { return }
        let width = 30
        let filled = width * min(done, total) / total
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        draw("\r\(activity): [\(bar)] \(done)/\(total)")
    }

    /// Erases the bar.
    func finish() {
        guard shown, total > 0 else { return }
        draw("\r\u{1B}[K")
    }

    private func draw(_ text: String) {
        var bytes = Array(text.utf8)
        _ = write(STDERR_FILENO, &bytes, bytes.count)
    }
}
