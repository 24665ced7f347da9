// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// One D-Bus interface as this provider serves it: its methods (each with the code that
/// serves it), properties and signals. `SecretService.interfaces` is the one table of them;
/// dispatch and the introspection XML (`Introspection`) both come from it, so the two
/// cannot disagree.
struct BusInterface: Sendable {
    /// An argument of a method or signal: a name (optional for introspection) and a type.
    struct Argument: Sendable {
        let name: String?
        let type: String

        init(_ name: String?, _ type: String) {
            self.name = name
            self.type = type
        }
    }

    /// A method: its arguments in and out, and what serves a call of it.
    struct Method: Sendable {
        let name: String
        let input: [Argument]
        let output: [Argument]
        /// Serves `call` to `object`; replies through `connection` or throws a `BusFailure`.
        let serve: @Sendable (SecretService, BusMessage, SecretObject, BusConnection) throws -> Void

        /// The signature a call must have: the input types in order.
        var signature: String { input.map(\.type).joined() }
    }

    /// A property: its name, type and whether `Set` may change it.
    struct Property: Sendable {
        let name: String
        let type: String
        let writable: Bool
    }

    /// A signal: its name and arguments.
    struct Signal: Sendable {
        let name: String
        let arguments: [Argument]
    }

    let name: String
    let methods: [Method]
    var properties: [Property] = []
    var signals: [Signal] = []

    /// The method `call` names, if this interface has it and `call` names this interface
    /// or none; throws `invalidArguments` when the signature does not fit.
    func method(for call: BusMessage) throws -> Method? {
        guard call.interface.isEmpty || call.interface == name,
            let method = methods.first(where: { $0.name == call.member })
        else { return nil }
        guard call.has(signature: method.signature) else {
            throw BusFailure.invalidArguments("\(method.name) takes (\(method.signature)), not (\(call.signature))")
        }
        return method
    }
}
