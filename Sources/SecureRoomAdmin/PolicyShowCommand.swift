import ArgumentParser
import SecureRoomCore

/// `secureroom policy show`: the policy in effect.
struct PolicyShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show the policy in effect (config file and defaults).",
        discussion: """
        Fields: digits, deny (failures that disable the PIN), schedule (FAILURES:DELAY \
        pairs), blocklist (source) and blocklist_size, argon2 parameters for new PINs, \
        nopin, even_deny_root.
        """)

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var state: StateOptions

    func run() throws {
        try reportingFailures {
            let configuration = try state.load()
            let blocklist = try Blocklist.load(configuration.blocklist)
            let schedule = configuration.lockout.schedule
            let kdf = configuration.kdf
            if json {
                let steps = schedule.map { "{\"failures\":\($0.failures),\"delay_seconds\":\($0.delay)}" }
                print("{\"digits\":\(configuration.format.digits),\"deny\":\(configuration.lockout.deny),"
                      + "\"schedule\":[\(steps.joined(separator: ","))],"
                      + "\"blocklist\":\"\(JSON.escape(blocklist.source))\",\"blocklist_size\":\(blocklist.count),"
                      + "\"argon2\":{\"memory_kib\":\(kdf.memoryKiB),\"iterations\":\(kdf.iterations),\"lanes\":\(kdf.lanes)},"
                      + "\"nopin\":\"\(configuration.noPIN.rawValue)\",\"even_deny_root\":\(configuration.evenDenyRoot)}")
                return
            }
            print("""
            digits          \(configuration.format.digits)
            deny            \(configuration.lockout.deny) consecutive failures disable the PIN
            schedule        \(schedule.isEmpty ? "none" : LockoutPolicy.render(schedule))
            blocklist       \(blocklist.source) (\(blocklist.count) PINs)
            constant steps  refused (1111, 1234, 1357, 9876, ...)
            argon2id        m=\(kdf.memoryKiB) KiB, t=\(kdf.iterations), p=\(kdf.lanes) (new PINs)
            nopin           \(configuration.noPIN.rawValue)
            even_deny_root  \(configuration.evenDenyRoot ? "yes" : "no")
            """)
        }
    }
}

/// JSON string escaping for values that are not already known to be plain.
enum JSON {
    /// `text` with quotes, backslashes and control characters escaped.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
