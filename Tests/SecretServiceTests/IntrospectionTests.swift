// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import FoundationXML
import XCTest

@testable import SecureRoomSecretService

/// The introspection XML comes from the table the dispatch reads: for each kind of object
/// it is well-formed XML and names exactly the table's interfaces, methods (with their
/// input signatures), properties and signals.
final class IntrospectionTests: XCTestCase {
    /// What an XML document declares: interface → its methods with input signatures, its
    /// properties, its signals.
    private final class Declarations: NSObject, XMLParserDelegate {
        var interfaces: [String: [String]] = [:]
        private var interface = "", member = "", inputs = ""

        func parser(
            _ parser: XMLParser, didStartElement element: String, namespaceURI: String?,
            qualifiedName: String?, attributes: [String: String] = [:]
        ) {
            switch element {
            case "interface":
                interface = attributes["name"] ?? "?"
                interfaces[interface] = []
            case "method", "signal":
                member = element + " " + (attributes["name"] ?? "?")
                inputs = ""
            case "property": interfaces[interface, default: []].append("property \(attributes["name"] ?? "?")")
            case "arg" where attributes["direction"] != "out" && member.hasPrefix("method"):
                inputs += attributes["type"] ?? "?"
            default: break
            }
        }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            if element == "method" { interfaces[interface, default: []].append(member + "(\(inputs))") }
            if element == "signal" { interfaces[interface, default: []].append(member) }
        }
    }

    func testTheXMLOfEachObjectIsTheTable() throws {
        let objects: [SecretObject] = [
            .service, .collection, .item(id: Array(repeating: 1, count: 32)),
            .session(path: "/org/freedesktop/secrets/session/1"),
            .prompt(path: "/org/freedesktop/secrets/prompt/1"), .node(children: ["login"]),
        ]
        for object in objects {
            let text = Introspection.xml(for: object)
            let parser = XMLParser(data: Data(text.utf8))
            let declarations = Declarations()
            parser.delegate = declarations
            XCTAssertTrue(parser.parse(), "\(object): \(parser.parserError.map { "\($0)" } ?? "")\n\(text)")
            var expected: [String: [String]] = [:]
            for interface in SecretService.common + SecretService.interfaces(of: object) {
                expected[interface.name] =
                    interface.methods.map { "method \($0.name)(\($0.signature))" }
                    + interface.properties.map { "property \($0.name)" } + interface.signals.map { "signal \($0.name)" }
            }
            XCTAssertEqual(
                declarations.interfaces.mapValues { $0.sorted() }, expected.mapValues { $0.sorted() }, "\(object)")
        }
        XCTAssertTrue(Introspection.xml(for: .service).contains("<node name=\"collection\"/>"))
        XCTAssertEqual(
            SecretService.interfaces(of: .collection).first?.methods.map(\.name),
            ["Delete", "SearchItems", "CreateItem"])
    }
}
