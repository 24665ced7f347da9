// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSDBus
import Glibc
import SecureRoomBase

/// One sd-bus message, read front to back or appended to, with typed calls in place of
/// sd-bus's variadic ones. A message this type creates (`reply`, `signal`) is released by
/// `send`; an incoming call belongs to sd-bus. A failed read is `InvalidArgs`: callers check
/// the signature first (`has(signature:)`), so that only happens on malformed contents.
struct BusMessage {
    let pointer: OpaquePointer

    /// The unique bus name of the sender ("" if the bus did not say).
    var sender: String { sr_sd_bus_message_get_sender(pointer).map { String(cString: $0) } ?? "" }
    /// The object path the message is addressed to.
    var path: String { sr_sd_bus_message_get_path(pointer).map { String(cString: $0) } ?? "" }
    /// The interface named by the call ("" if none).
    var interface: String { sr_sd_bus_message_get_interface(pointer).map { String(cString: $0) } ?? "" }
    /// The method or signal name.
    var member: String { sr_sd_bus_message_get_member(pointer).map { String(cString: $0) } ?? "" }
    /// The body's signature.
    var signature: String { sr_sd_bus_message_get_signature(pointer, 1).map { String(cString: $0) } ?? "" }

    /// This message, kept past its handler (a call answered later): `release` it after
    /// the reply.
    func retained() -> BusMessage { BusMessage(pointer: sr_sd_bus_message_ref(pointer)) }

    /// Gives up a `retained` message.
    func release() { sr_sd_bus_message_unref(pointer) }

    /// Has sd-bus wipe the message's memory when it is freed (it carries secrets).
    func markSensitive() { _ = sr_sd_bus_message_sensitive(pointer) }

    /// True if the body has exactly `signature`.
    func has(signature: String) -> Bool { sr_sd_bus_message_has_signature(pointer, signature) > 0 }

    /// The D-Bus type code of `type` ('s', 'a', ...), as sd-bus takes it.
    private static func code(_ type: Unicode.Scalar) -> CChar { CChar(truncatingIfNeeded: type.value) }

    // MARK: reading

    private func check(_ status: Int32, _ what: String) throws {
        guard status >= 0 else {
            throw BusFailure.invalidArguments("cannot read \(what): \(String(cString: strerror(-status)))")
        }
    }

    /// Reads a string ('s') or object path ('o').
    func readString(_ type: Unicode.Scalar = "s") throws -> String {
        var value: UnsafePointer<CChar>?
        try check(sr_sd_bus_message_read_basic(pointer, Self.code(type), &value), "a string")
        guard let value else { throw BusFailure.invalidArguments("missing string") }
        return String(cString: value)
    }

    /// Reads a boolean ('b').
    func readBool() throws -> Bool {
        var value: Int32 = 0
        try check(sr_sd_bus_message_read_basic(pointer, Self.code("b"), &value), "a boolean")
        return value != 0
    }

    /// Reads a byte array ('ay') of at most `limit` bytes into a wiped buffer; a longer one
    /// is refused before it is copied.
    func readBytes(atMost limit: Int, _ what: String) throws -> SecretBytes {
        var data: UnsafeRawPointer?
        var size = 0
        try check(sr_sd_bus_message_read_array(pointer, Self.code("y"), &data, &size), "a byte array")
        guard size <= limit else {
            throw BusFailure.invalidArguments("\(what) is at most \(limit) bytes (this one is \(size))")
        }
        guard let data, size > 0 else { return SecretBytes(count: 0) }
        return SecretBytes(copying: UnsafeRawBufferPointer(start: data, count: size))
    }

    /// Enters a container; false if an array has ended (for arrays' elements).
    @discardableResult
    func enter(_ type: Unicode.Scalar, _ contents: String) throws -> Bool {
        let status = sr_sd_bus_message_enter_container(pointer, Self.code(type), contents)
        try check(status, "a container \(type)(\(contents))")
        return status > 0
    }

    /// Leaves the container entered last.
    func exit() throws { try check(sr_sd_bus_message_exit_container(pointer), "the end of a container") }

    /// Reads an array of object paths ('ao').
    func readPaths() throws -> [String] {
        try enter("a", "o")
        var paths: [String] = []
        while !atEnd() { paths.append(try readString("o")) }
        try exit()
        return paths
    }

    /// Reads a string dictionary ('a{ss}'); a key given twice is refused.
    func readStringDictionary() throws -> [String: String] {
        try enter("a", "{ss}")
        var dictionary: [String: String] = [:]
        while try enter("e", "ss") {
            let key = try readString()
            let value = try readString()
            guard dictionary.updateValue(value, forKey: key) == nil else {
                throw BusFailure.invalidArguments("the key \"\(key)\" is given twice")
            }
            try exit()
        }
        try exit()
        return dictionary
    }

    /// Reads a property dictionary ('a{sv}'), calling `entry` with each key while positioned
    /// at its variant; `entry` reads the variant or returns false to have it skipped.
    func readPropertyDictionary(_ entry: (String) throws -> Bool) throws {
        try enter("a", "{sv}")
        while try enter("e", "sv") {
            if !(try entry(try readString())) { try skip("v") }
            try exit()
        }
        try exit()
    }

    /// The contents signature of the variant at the read position.
    func variantContents() throws -> String {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        try check(sr_sd_bus_message_peek_type(pointer, &type, &contents), "a variant")
        guard type == Self.code("v"), let contents else { throw BusFailure.invalidArguments("a variant was expected") }
        return String(cString: contents)
    }

    /// Skips values of the D-Bus `types` ("v": one variant, whatever it holds).
    func skip(_ types: String) throws { try check(sr_sd_bus_message_skip(pointer, types), "a value of type \(types)") }

    /// True at the end of the current container.
    func atEnd() -> Bool { sr_sd_bus_message_at_end(pointer, 0) > 0 }

    // MARK: writing

    private func written(_ status: Int32) throws {
        guard status >= 0 else {
            throw BusFailure.failed("cannot build the reply: \(String(cString: strerror(-status)))")
        }
    }

    /// Appends a string ('s') or object path ('o').
    func append(_ value: String, as type: Unicode.Scalar = "s") throws {
        try written(value.withCString { sr_sd_bus_message_append_basic(pointer, Self.code(type), $0) })
    }

    /// Appends a boolean ('b').
    func append(_ value: Bool) throws {
        var word: Int32 = value ? 1 : 0
        try written(sr_sd_bus_message_append_basic(pointer, Self.code("b"), &word))
    }

    /// Appends an unsigned 64-bit integer ('t').
    func append(_ value: UInt64) throws {
        var word = value
        try written(sr_sd_bus_message_append_basic(pointer, Self.code("t"), &word))
    }

    /// Appends an unsigned 32-bit integer ('u').
    func append(_ value: UInt32) throws {
        var word = value
        try written(sr_sd_bus_message_append_basic(pointer, Self.code("u"), &word))
    }

    /// Appends a signed 32-bit integer ('i').
    func append(_ value: Int32) throws {
        var word = value
        try written(sr_sd_bus_message_append_basic(pointer, Self.code("i"), &word))
    }

    /// Appends a byte array ('ay').
    func append(bytes: UnsafeRawBufferPointer) throws {
        try written(sr_sd_bus_message_append_array(pointer, Self.code("y"), bytes.baseAddress, bytes.count))
    }

    /// Appends a container of `type` with `contents`, filled by `body`.
    func container(_ type: Unicode.Scalar, _ contents: String, _ body: () throws -> Void) throws {
        try written(sr_sd_bus_message_open_container(pointer, Self.code(type), contents))
        try body()
        try written(sr_sd_bus_message_close_container(pointer))
    }

    /// Appends an array of object paths ('ao').
    func append(paths: [String]) throws {
        try container("a", "o") { for path in paths { try append(path, as: "o") } }
    }

    /// Appends a string dictionary ('a{ss}'), keys in order.
    func append(dictionary: [String: String]) throws {
        try container("a", "{ss}") {
            for (key, value) in dictionary.sorted(by: { $0.key < $1.key }) {
                try container("e", "ss") {
                    try append(key)
                    try append(value)
                }
            }
        }
    }
}
