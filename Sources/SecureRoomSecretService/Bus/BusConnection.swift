// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSDBus
import CSecureRoomSystem
import Glibc
import SecureRoomBase

/// The provider's connection to the user's session bus (sd-bus): the well-known name, one
/// handler for every call under a path prefix, one for a signal, replies and signals out,
/// and the loop. Single-threaded: sd-bus and every handler run on the calling thread.
final class BusConnection {
    private let bus: OpaquePointer
    private var handlers: [Handler] = []

    /// A call or signal handler and the slot that keeps it registered.
    private final class Handler {
        let body: (BusMessage) -> Void
        var slot: OpaquePointer?
        init(_ body: @escaping (BusMessage) -> Void) { self.body = body }
    }

    /// Connects to the session bus of the user running this process
    /// (DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus).
    init() throws {
        guard sr_sd_bus_load() == 0 else {
            throw BusFailure.failed("cannot load sd-bus: \(String(cString: sr_sd_bus_load_error()))")
        }
        var bus: OpaquePointer?
        let status = sr_sd_bus_open_user(&bus)
        guard status >= 0, let bus else {
            throw BusFailure.failed(
                "cannot connect to the session bus: \(String(cString: strerror(-status)))"
                    + " (is DBUS_SESSION_BUS_ADDRESS or XDG_RUNTIME_DIR set?)")
        }
        self.bus = bus
    }

    deinit {
        for handler in handlers { sr_sd_bus_slot_unref(handler.slot) }
        sr_sd_bus_flush_close_unref(bus)
    }

    /// The outcome of asking for a well-known name.
    enum NameRequest: Equatable {
        case acquired
        /// Another connection owns it: who ("…:1.42 (pid 123, gnome-keyring-d)").
        case owned(by: String)
    }

    /// Asks for `name` without queueing and without replacing its owner (never fighting
    /// another provider over it).
    func request(name: String) throws -> NameRequest {
        let status = sr_sd_bus_request_name(bus, name, 0)
        if status == -EEXIST { return .owned(by: owner(of: name)) }
        guard status >= 0 else { throw BusFailure.failed("cannot own \(name): \(String(cString: strerror(-status)))") }
        return .acquired
    }

    /// Gives `name` back (at a clean exit).
    func release(name: String) { _ = sr_sd_bus_release_name(bus, name) }

    /// Who owns `name`, as "UNIQUE (pid N, COMM)", from the bus's own records.
    private func owner(of name: String) -> String {
        var creds: OpaquePointer?
        let mask = UInt64(SD_BUS_CREDS_PID | SD_BUS_CREDS_UNIQUE_NAME)
        guard sr_sd_bus_get_name_creds(bus, name, mask, &creds) >= 0, let creds else { return "another connection" }
        defer { sr_sd_bus_creds_unref(creds) }
        var unique: UnsafePointer<CChar>?
        var pid: pid_t = 0
        _ = sr_sd_bus_creds_get_unique_name(creds, &unique)
        _ = sr_sd_bus_creds_get_pid(creds, &pid)
        let who = unique.map { String(cString: $0) } ?? "another connection"
        guard pid > 0 else { return who }
        return "\(who) (pid \(pid), \(Self.command(of: pid)))"
    }

    /// The command name of `pid` (/proc/PID/comm), "?" if it cannot be read.
    private static func command(of pid: pid_t) -> String {
        guard let file = fopen("/proc/\(pid)/comm", "re") else { return "?" }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 64)
        guard fgets(&line, Int32(line.count), file) != nil else { return "?" }
        let name = String(decoding: line.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "?" : name
    }

    private static let trampoline: sd_bus_message_handler_t = { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        Unmanaged<Handler>.fromOpaque(userdata).takeUnretainedValue().body(BusMessage(pointer: message))
        return 1
    }

    /// Calls `body` for every method call to `prefix` and every path below it.
    func handleCalls(under prefix: String, _ body: @escaping (BusMessage) -> Void) throws {
        let handler = Handler(body)
        let status = sr_sd_bus_add_fallback(
            bus, &handler.slot, prefix, Self.trampoline, Unmanaged.passUnretained(handler).toOpaque())
        guard status >= 0 else {
            throw BusFailure.failed("cannot serve \(prefix): \(String(cString: strerror(-status)))")
        }
        handlers.append(handler)
    }

    /// Calls `body` for each signal `member` of `interface` sent by `sender`.
    func handleSignals(from sender: String, interface: String, member: String, _ body: @escaping (BusMessage) -> Void)
        throws
    {
        let handler = Handler(body)
        let status = sr_sd_bus_match_signal(
            bus, &handler.slot, sender, nil, interface, member, Self.trampoline,
            Unmanaged.passUnretained(handler).toOpaque())
        guard status >= 0 else {
            throw BusFailure.failed("cannot watch \(interface).\(member): \(String(cString: strerror(-status)))")
        }
        handlers.append(handler)
    }

    /// Replies to `call` with a body written by `body`. If `body` throws, nothing is sent
    /// and the error goes to the caller, which answers it through its one error mapping.
    func reply(to call: BusMessage, _ body: (BusMessage) throws -> Void) throws {
        var created: OpaquePointer?
        let status = sr_sd_bus_message_new_method_return(call.pointer, &created)
        guard status >= 0, let message = created else {
            throw BusFailure.failed("cannot build the reply: \(String(cString: strerror(-status)))")
        }
        defer { sr_sd_bus_message_unref(message) }
        try body(BusMessage(pointer: message))
        _ = sr_sd_bus_send(bus, message, nil)
    }

    /// Replies to `call` with the error `failure`.
    func reply(to call: BusMessage, failure: BusFailure) {
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        _ = sr_sd_bus_error_set(&error, failure.name, failure.message)
        _ = sr_sd_bus_reply_method_error(call.pointer, &error)
        sr_sd_bus_error_free(&error)
    }

    /// Emits the signal `interface.member` from `path` with a body written by `body`; to
    /// `destination` only when given (a prompt's result is for its client alone).
    func emit(
        from path: String, interface: String, member: String, to destination: String? = nil,
        _ body: (BusMessage) throws -> Void
    ) {
        var signal: OpaquePointer?
        guard sr_sd_bus_message_new_signal(bus, &signal, path, interface, member) >= 0, let signal else { return }
        defer { sr_sd_bus_message_unref(signal) }
        if let destination, sr_sd_bus_message_set_destination(signal, destination) < 0 { return }
        guard (try? body(BusMessage(pointer: signal))) != nil else { return }
        _ = sr_sd_bus_send(bus, signal, nil)
    }

    /// Calls `interface.member` on `destination` at `path` without waiting for (or
    /// wanting) a reply: best effort, as for a desktop notification.
    func call(
        _ destination: String, _ path: String, interface: String, member: String, _ body: (BusMessage) throws -> Void
    ) {
        var call: OpaquePointer?
        guard sr_sd_bus_message_new_method_call(bus, &call, destination, path, interface, member) >= 0, let call else {
            return
        }
        defer { sr_sd_bus_message_unref(call) }
        guard sr_sd_bus_message_set_expect_reply(call, 0) >= 0, (try? body(BusMessage(pointer: call))) != nil else {
            return
        }
        _ = sr_sd_bus_send(bus, call, nil)
    }

    /// Calls `interface.member` on `destination` at `path` with the arguments `arguments`
    /// appends, waits (25 s at most) for the reply and returns what `read` reads from it.
    /// An error reply is thrown as a `BusFailure` with the error's name and message.
    func call<Result>(
        _ destination: String, _ path: String, interface: String, member: String,
        arguments: (BusMessage) throws -> Void = { _ in }, read: (BusMessage) throws -> Result
    ) throws -> Result {
        var call: OpaquePointer?
        let made = sr_sd_bus_message_new_method_call(bus, &call, destination, path, interface, member)
        guard made >= 0, let call else { throw BusFailure.failed("\(member): \(String(cString: strerror(-made)))") }
        defer { sr_sd_bus_message_unref(call) }
        // Never has the bus start a service to answer: the provider that runs now, or none.
        _ = sr_sd_bus_message_set_auto_start(call, 0)
        try arguments(BusMessage(pointer: call))
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        var reply: OpaquePointer?
        let status = sr_sd_bus_call(bus, call, 25_000_000, &error, &reply)
        defer {
            sr_sd_bus_error_free(&error)
            sr_sd_bus_message_unref(reply)
        }
        guard status >= 0, let reply else {
            throw BusFailure(
                name: error.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed",
                message: "\(interface).\(member): "
                    + (error.message.map { String(cString: $0) } ?? String(cString: strerror(-status))))
        }
        return try read(BusMessage(pointer: reply))
    }

    /// Whether `name` is owned by SecureRoom's own provider: a process running this very
    /// program (/proc/PID/exe), or one whose command is secureroom-vault (another copy, an
    /// older binary after an upgrade).
    func isOwnedBySecureRoom(_ name: String) -> Bool {
        var creds: OpaquePointer?
        guard sr_sd_bus_get_name_creds(bus, name, UInt64(SD_BUS_CREDS_PID), &creds) >= 0, let creds else {
            return false
        }
        defer { sr_sd_bus_creds_unref(creds) }
        var pid: pid_t = 0
        guard sr_sd_bus_creds_get_pid(creds, &pid) >= 0, pid > 0 else { return false }
        var owner = stat()
        var me = stat()
        let sameProgram =
            stat("/proc/\(pid)/exe", &owner) == 0 && stat("/proc/self/exe", &me) == 0
            && owner.st_dev == me.st_dev && owner.st_ino == me.st_ino
        // /proc/PID/comm holds at most 15 bytes: "secureroom-vaul".
        return sameProgram || Self.command(of: pid).hasPrefix("secureroom-vau")
    }

    /// Processes messages until `stop` says so. Between messages it waits on the bus for at
    /// most `wake()` milliseconds (-1: until a message comes), with `signals` unblocked
    /// only during that wait (`sr_poll_unblocking`), so a stop signal is never missed.
    /// Returns normally if the bus connection ends.
    func run(signals: sigset_t, wake: () -> Int32, stop: () -> Bool) throws {
        var unblocked = signals
        while !stop() {
            let processed = sr_sd_bus_process(bus, nil)
            if processed == -ECONNRESET || processed == -ENOTCONN { return }
            guard processed >= 0 else {
                throw BusFailure.failed("the session bus failed: \(String(cString: strerror(-processed)))")
            }
            if processed > 0 { continue }
            var timeout = wake()
            var busDeadline: UInt64 = 0
            if sr_sd_bus_get_timeout(bus, &busDeadline) >= 0, busDeadline != UInt64.max {
                let bounded = Deadline(monotonicMicroseconds: busDeadline).remainingMilliseconds
                timeout = timeout < 0 ? bounded : min(timeout, bounded)
            }
            let events = sr_sd_bus_get_events(bus)
            guard events >= 0 else { return }
            if sr_poll_unblocking(sr_sd_bus_get_fd(bus), Int16(truncatingIfNeeded: events), timeout, &unblocked) < 0,
                errno != EINTR
            {
                throw BusFailure.failed("waiting on the session bus failed: \(String(cString: strerror(errno)))")
            }
        }
    }
}
