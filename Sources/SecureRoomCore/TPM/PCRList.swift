// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

extension PCRPolicy {
    /// Parses `tpm_pcrs=` and a record's `tpm-pcrs`: indices in `indexRange`, comma-separated,
    /// ascending, without repeats, at most `maximumCount`; nil for anything else. An empty
    /// list is no PCRs.
    public static func parseList(_ text: Substring) -> [Int]? {
        if text.isEmpty { return [] }
        var pcrs: [Int] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let pcr = RecordText.decimal(item, as: Int.self), indexRange.contains(pcr), pcr > (pcrs.last ?? -1)
            else { return nil }
            pcrs.append(pcr)
        }
        return pcrs.count <= maximumCount ? pcrs : nil
    }
}
