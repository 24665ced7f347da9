// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc

/// Which `PAM_RHOST` values name this machine (docs/DESIGN.md §7): the rest are the
/// network, where `remote=deny` keeps the PIN away.
///
/// Local: empty; `localhost`, `localhost.localdomain`, `ip6-localhost`, `ip6-loopback`;
/// a loopback address (127.0.0.0/8 as a dotted quad, `::1` and every other spelling of
/// it, `::ffff:127.x.y.z`); and this host's own name, alone or followed by this host's
/// own domain — in any ASCII letter case, with or without one trailing dot.
///
/// Remote: everything else. In particular this host's name followed by any other domain
/// (`srbox.evil.example`: a network service that reports a client-chosen name, such as a
/// PTR record the attacker controls, must not get the PIN prompt); any name with a byte
/// outside ASCII (an internationalised lookalike, or a letter that Unicode case folding
/// would turn into this name's, such as U+212A KELVIN SIGN into `k`); and numeric forms
/// that only `inet_aton` reads (`127.1`, `0x7f.0.0.1`, `2130706433`).
///
/// This host's own domain comes from what the administrator wrote, never from DNS (a PAM
/// module must not wait on the network) nor from the resolver's configuration (a DHCP
/// server sets its `search` and `domain` lines: a rogue one would make its own domain
/// local): the domain part of `gethostname`, and the names that `/etc/hosts` lists on a
/// line with the host name (Debian's installer writes `127.0.1.1 srbox.example.org srbox`).
/// A lone "." (the DNS root) is not a name of this host; only an empty `PAM_RHOST` is.
public struct LocalHost: Sendable {
    /// The host name without its domain, lowercased; empty if unknown.
    public let shortName: String
    /// This host's fully qualified names, lowercased, without a trailing dot.
    public let qualifiedNames: Set<String>

    /// This host as `hostname` (from gethostname) and `hosts` (the text of /etc/hosts)
    /// describe it.
    public init(hostname: String, hosts: String) {
        let full = Self.asciiLowercased(hostname).flatMap(Self.withoutTrailingDot) ?? ""
        let short = String(full.prefix { $0 != "." })
        shortName = short
        guard !short.isEmpty else {
            qualifiedNames = []
            return
        }
        var names: Set<String> = full.contains(".") ? [full] : []
        for line in hosts.split(separator: "\n") {
            let fields = line.prefix { $0 != "#" }.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst()
                .compactMap { Self.asciiLowercased(String($0)).flatMap(Self.withoutTrailingDot) }
            guard fields.contains(short) || fields.contains(full) else { continue }
            names.formUnion(fields.filter { $0.hasPrefix(short + ".") })
        }
        qualifiedNames = names
    }

    /// This machine, read from gethostname and /etc/hosts.
    public static func system() -> LocalHost {
        LocalHost(hostname: hostname(), hosts: contents(of: "/etc/hosts"))
    }

    /// Whether `host` (a `PAM_RHOST` value) is this machine. The files are read only for
    /// a name that starts with this host's short name and a dot.
    public static func isLocal(_ host: String) -> Bool {
        guard let name = asciiLowercased(host).flatMap(withoutTrailingDot) else { return false }
        if let loopback = loopback(name) { return loopback }
        let short = String(asciiLowercased(hostname())?.prefix { $0 != "." } ?? "")
        guard !short.isEmpty, name == short || name.hasPrefix(short + ".") else { return false }
        return system().isLocal(name)
    }

    /// Whether `host` (a `PAM_RHOST` value) is this machine as described here.
    public func isLocal(_ host: String) -> Bool {
        guard let name = Self.asciiLowercased(host).flatMap(Self.withoutTrailingDot) else { return false }
        if let loopback = Self.loopback(name) { return loopback }
        return !shortName.isEmpty && (name == shortName || qualifiedNames.contains(name))
    }

    /// True for the loopback names and addresses, false for any other address, nil for a
    /// name that is not an address (`name` is lowercased, without a trailing dot).
    private static func loopback(_ name: String) -> Bool? {
        if name.isEmpty || ["localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"].contains(name) {
            return true
        }
        var v4 = in_addr()
        if inet_pton(AF_INET, name, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, name, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        let isV6Loopback = bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1
        let isMappedV4Loopback =
            bytes.prefix(10).allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff && bytes[12] == 127
        return isV6Loopback || isMappedV4Loopback
    }

    /// `text` with ASCII letters lowercased; nil if it has a byte outside printable ASCII.
    private static func asciiLowercased(_ text: String) -> String? {
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            guard byte > 0x20, byte < 0x7f else { return nil }
            bytes.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `name` without one trailing dot (the root of the DNS tree); nil for ".." endings
    /// and for "." alone, which names no host.
    private static func withoutTrailingDot(_ name: String) -> String? {
        guard name.hasSuffix(".") else { return name }
        let trimmed = String(name.dropLast())
        return trimmed.isEmpty || trimmed.hasSuffix(".") ? nil : trimmed
    }

    private static func hostname() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A small system file's text; empty if it cannot be read (no file: no names from it).
    private static func contents(of path: String) -> String {
        guard
            let file = try? FileDescriptor.open(
                path, in: nil, flags: O_RDONLY | O_NOCTTY | O_NONBLOCK, displayPath: path),
            let bytes = try? file.readAll(limit: 1 << 20)
        else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }
}
