// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// An element as `XMLReader` reads it: its name, its attributes, its child elements in
/// document order, and the text directly inside it (character data, references and CDATA
/// sections joined; comments and processing instructions left out).
struct XMLElementNode {
    /// The element's name, prefix and all ("KeePassFile", "x:y").
    let name: String
    /// Its attributes, references resolved.
    let attributes: [String: String]
    /// The line its start tag is on, for messages.
    let line: Int
    /// Its child elements, in document order.
    var children: [XMLElementNode] = []
    /// The text directly inside it, references resolved and line ends made "\n".
    var text = ""

    /// The first child element named `name`.
    func child(_ name: String) -> XMLElementNode? {
        children.first { $0.name == name }
    }
}
