// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// Fuzzes the configuration parsers (secureroom.conf(5)): the config file
/// (`Configuration.apply(fileText:path:)` through `Configuration.load`), module arguments
/// (`Configuration.apply(_:)`), and the lockout schedule (`LockoutPolicy.parseSchedule`).
/// The first input byte picks one; the rest is the file, the NUL-separated arguments, or
/// the schedule text.
///
/// Properties of a configuration that loads:
/// - every setting is in its documented range (deny, schedule order and delays, argon2
///   parameters, digits, vault_timeout, wipe_after); paths are absolute;
/// - from a file, no value spans lines (no value contains a line feed): each line is one
///   option, none is swallowed by the previous one;
/// - the schedule renders (`LockoutPolicy.render`) to text that parses back to itself.
import FuzzSupport

@testable import SecureRoomCore

/// Checks the ranges every loaded configuration must respect.
private func checkRanges(_ configuration: Configuration) {
    require(LockoutPolicy.denyRange.contains(configuration.lockout.deny), "deny \(configuration.lockout.deny)")
    checkSchedule(configuration.lockout.schedule)
    require((try? configuration.kdf.validate()) != nil, "invalid argon2 parameters accepted")
    require(PINFormat.digitRange.contains(configuration.format.digits), "digits \(configuration.format.digits)")
    require((1...7 * 86_400).contains(configuration.vaultTimeout), "vault_timeout \(configuration.vaultTimeout)")
    require(configuration.wipeAfter.map { (1...LockoutRecord.maximumSeenGuesses).contains($0) } ?? true, "wipe_after")
    for path in [
        configuration.directory, configuration.helperPath, configuration.sessionDirectory,
        configuration.effectivePepperPath,
    ] {
        require(path.hasPrefix("/"), "relative path accepted")
    }
}

/// Checks a schedule's order and bounds, and that it renders to text that parses back to it.
private func checkSchedule(_ schedule: [LockoutPolicy.Step]) {
    for (index, step) in schedule.enumerated() {
        require(step.failures >= 1 && (0...31 * 86_400).contains(step.delay), "schedule step out of range")
        require(index == 0 || schedule[index - 1].failures < step.failures, "schedule not increasing")
    }
    let text = LockoutPolicy.render(schedule)
    require((try? LockoutPolicy.parseSchedule(text)) == schedule, "rendered schedule does not parse back")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfiguration(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let (pick, bytes) = selector(fuzzBytes(data, size))
    switch pick % 3 {
    case 0:
        let path = "/etc/security/fuzz.conf"
        guard
            let configuration = try? Configuration.load(
                arguments: ["conf=" + path],
                reader: { $0 == path ? bytes : nil })
        else { return 0 }
        checkRanges(configuration)
        for value in [
            configuration.directory, configuration.helperPath, configuration.sessionDirectory,
            configuration.effectivePepperPath, configuration.blocklist,
        ] + configuration.unknownKeys {
            require(!value.utf8.contains(0x0a), "a value spans lines: \(UserName.quoted(value))")
        }
    case 1:
        let arguments = bytes.split(separator: 0, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        guard let configuration = try? Configuration.load(arguments: arguments, reader: { _ in nil })
        else { return 0 }
        checkRanges(configuration)
    default:
        guard let schedule = try? LockoutPolicy.parseSchedule(String(decoding: bytes, as: UTF8.self)) else { return 0 }
        if let policy = try? LockoutPolicy(deny: 10, schedule: schedule) { checkSchedule(policy.schedule) }
    }
    return 0
}
