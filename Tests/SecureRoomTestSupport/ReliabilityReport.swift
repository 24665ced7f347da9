// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Rows for a reliability item's report (Tests/reliability/ITEM.sh renders them).
///
/// When the environment variable RELIABILITY_REPORT_DIR is set, `record` appends one
/// tab-separated line `suite<TAB>case<TAB>result<TAB>syslog line` to
/// `$RELIABILITY_REPORT_DIR/ITEM.tsv`; otherwise it does nothing, so the tests run the
/// same either way. Tabs and line breaks inside a field become spaces.
public struct ReliabilityReport {
    /// The item's name: the file is ITEM.tsv.
    public let item: String

    /// A report for `item`.
    public init(item: String) { self.item = item }

    /// The file rows go to, or nil when no report is wanted.
    public var path: String? {
        guard let directory = ProcessInfo.processInfo.environment["RELIABILITY_REPORT_DIR"], !directory.isEmpty else {
            return nil
        }
        return directory + "/" + item + ".tsv"
    }

    /// Appends one row (a no-op without RELIABILITY_REPORT_DIR).
    public func record(suite: String, case name: String, result: String, syslog: String) {
        guard let path else { return }
        let row = [suite, name, result, Self.trimmed(syslog)].map(Self.field).joined(separator: "\t") + "\n"
        try? FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true)
        // O_APPEND: rows from one test process stay whole lines.
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = Array(row.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// A syslog datagram without its `<PRI>TIMESTAMP IDENT[PID]: ` prefix (from the module's
    /// own `pam_secureroom(` tag on, when present), at most 600 characters.
    public static func trimmed(_ line: String) -> String {
        var text = Substring(line)
        if let tag = text.range(of: "pam_secureroom(") {
            text = text[tag.lowerBound...]
        } else if let close = text.firstIndex(of: ">") {
            text = text[text.index(after: close)...]
        }
        let flat = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return flat.count > 600 ? String(flat.prefix(600)) + "…" : flat
    }

    private static func field(_ text: String) -> String {
        text.map { $0 == "\t" || $0 == "\n" || $0 == "\r" ? " " : String($0) }.joined()
    }
}
