// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// The introspection data of each kind of object (org.freedesktop.DBus.Introspectable),
/// for tools such as `gdbus introspect` and `busctl`, written from the same table the
/// dispatch reads (`SecretService.common`, `SecretService.interfaces(of:)`).
enum Introspection {
    private static let doctype = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">

        """

    /// The XML for `object`; a node lists the names of the nodes below it.
    static func xml(for object: SecretObject) -> String {
        let children: [String]
        switch object {
        case .service: children = ["collection", "aliases"]
        case .node(let names): children = names
        default: children = []
        }
        let interfaces =
            object == .unknown ? SecretService.common : SecretService.common + SecretService.interfaces(of: object)
        return doctype + "<node>\n" + interfaces.map(xml).joined()
            + children.map { " <node name=\"\($0)\"/>\n" }.joined()
            + "</node>\n"
    }

    private static func xml(_ interface: BusInterface) -> String {
        var text = " <interface name=\"\(interface.name)\">\n"
        for method in interface.methods {
            let arguments =
                method.input.map { argument($0, direction: "in") }
                + method.output.map { argument($0, direction: "out") }
            text += element("method", method.name, arguments)
        }
        for property in interface.properties {
            text +=
                "  <property name=\"\(property.name)\" type=\"\(property.type)\" "
                + "access=\"\(property.writable ? "readwrite" : "read")\"/>\n"
        }
        for signal in interface.signals {
            text += element("signal", signal.name, signal.arguments.map { argument($0, direction: nil) })
        }
        return text + " </interface>\n"
    }

    private static func element(_ kind: String, _ name: String, _ arguments: [String]) -> String {
        guard !arguments.isEmpty else { return "  <\(kind) name=\"\(name)\"/>\n" }
        return "  <\(kind) name=\"\(name)\">\n" + arguments.map { "   " + $0 + "\n" }.joined() + "  </\(kind)>\n"
    }

    private static func argument(_ argument: BusInterface.Argument, direction: String?) -> String {
        "<arg" + (argument.name.map { " name=\"\($0)\"" } ?? "") + " type=\"\(argument.type)\""
            + (direction.map { " direction=\"\($0)\"" } ?? "") + "/>"
    }
}
