import Glibc

/// What PAM_RHOST values mean "this machine": empty, `localhost` (and Debian's
/// `localhost.localdomain`, `ip6-localhost`, `ip6-loopback`), the loopback addresses
/// (127.0.0.0/8, ::1, ::ffff:127.x) and this host's own name, alone or qualified (sudo
/// sets PAM_RHOST to it). Anything else is a transaction from the network (README
/// "Local by default").
enum RemoteHost {
    /// Whether `host` (a PAM_RHOST value) is this machine.
    static func isLocal(_ host: String) -> Bool {
        let name = host.lowercased()
        if name.isEmpty || ["localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback", "::1"].contains(name) {
            return true
        }
        var address = in_addr()
        let v4 = name.hasPrefix("::ffff:") ? String(name.dropFirst(7)) : name
        if inet_pton(AF_INET, v4, &address) == 1 { return UInt32(bigEndian: address.s_addr) >> 24 == 127 }
        let own = ownName
        return !own.isEmpty && (name == own || name.hasPrefix(own + "."))
    }

    /// This host's name (gethostname), lowercased; empty if unknown.
    private static var ownName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(cString: buffer).lowercased()
    }
}
