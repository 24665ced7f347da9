// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// A D-Bus error reply: its name and a one-line message. Handlers throw it; the service
/// turns every other error into one in a single place (`SecretService.failure(for:)`).
public struct BusFailure: Error, Equatable, CustomStringConvertible {
    /// The error name, e.g. org.freedesktop.Secret.Error.IsLocked.
    public let name: String
    /// What went wrong, for the client's log.
    public let message: String

    /// The message (what `secureroom-vault serve` prints when it cannot start).
    public var description: String { message }

    /// The vault is locked (the Secret Service's own error).
    static func isLocked(_ message: String) -> BusFailure {
        .init(name: "org.freedesktop.Secret.Error.IsLocked", message: message)
    }
    /// No session at that path for this client.
    static func noSession(_ message: String) -> BusFailure {
        .init(name: "org.freedesktop.Secret.Error.NoSession", message: message)
    }
    /// No such object.
    static func noSuchObject(_ message: String) -> BusFailure {
        .init(name: "org.freedesktop.Secret.Error.NoSuchObject", message: message)
    }
    /// Arguments of the right types but wrong values.
    static func invalidArguments(_ message: String) -> BusFailure {
        .init(name: "org.freedesktop.DBus.Error.InvalidArgs", message: message)
    }
    /// Something this provider does not do.
    static func notSupported(_ message: String) -> BusFailure {
        .init(name: "org.freedesktop.DBus.Error.NotSupported", message: message)
    }
    /// No such method on this object.
    static func unknownMethod(_ message: String) -> BusFailure {
        .init(name: "org.freedesktop.DBus.Error.UnknownMethod", message: message)
    }
    /// No such property.
    static func unknownProperty(_ message: String) -> BusFailure {
        .init(name: "org.freedesktop.DBus.Error.UnknownProperty", message: message)
    }
    /// A property that cannot be set.
    static func readOnly(_ message: String) -> BusFailure {
        .init(name: "org.freedesktop.DBus.Error.PropertyReadOnly", message: message)
    }
    /// A client asked for more than its share.
    static func limitsExceeded(_ message: String) -> BusFailure {
        .init(name: "org.freedesktop.DBus.Error.LimitsExceeded", message: message)
    }
    /// Anything else (the message says what).
    static func failed(_ message: String) -> BusFailure {
        .init(name: "org.freedesktop.DBus.Error.Failed", message: message)
    }
}
