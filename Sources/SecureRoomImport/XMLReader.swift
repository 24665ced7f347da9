// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomSystem
import SecureRoomVault

/// A small, strict XML 1.0 reader for KeePassXC's XML export, so that the vault tool needs
/// neither FoundationXML nor the libxml2 and ICU it would load at start-up. It reads
/// elements, attributes (in single or double quotes), text, CDATA sections, the five
/// predefined entities (`&lt;` `&gt;` `&amp;` `&apos;` `&quot;`) and character references
/// (`&#65;`, `&#x41;`); it skips comments and processing instructions, the XML
/// declaration among them. It refuses, with the line where it stands, what it does not
/// read rather than guess: a DOCTYPE (so no entity is ever declared, let alone expanded),
/// any other reference, a character reference to a character XML does not allow, an end
/// tag that does not match, an element left open, a second root element, a declaration
/// of another encoding than UTF-8, bytes that are not UTF-8 (or characters XML does not
/// allow), and what exceeds `ImportLimits`: the file's size, elements nested deeper than
/// `depth`, more than `elements`, more than `attributesPerElement` attributes on one
/// element, a name longer than `nameBytes`, an attribute value longer than
/// `attributeBytes`, an element's text longer than `textBytes`. Line ends become "\n".
/// Text is gathered in byte buffers, wiped once they have become `String`s; the copies a
/// buffer leaves when it grows, and those `String`s, are not.
struct XMLReader {
    /// The longest reference read, "&#x" and ";" included (leading zeros are allowed).
    private static let longestReference = 40

    private let bytes: [UInt8]
    private let limits: ImportLimits
    private var index = 0
    private var line = 1
    private var lineCountedTo = 0

    private init(bytes: [UInt8], limits: ImportLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    /// The root element of the document `bytes` (UTF-8, with or without a byte-order mark).
    static func document(_ bytes: [UInt8], limits: ImportLimits = .defaults) throws -> XMLElementNode {
        guard bytes.count <= limits.fileBytes else {
            throw VaultError.invalid("the XML export is larger than \(limits.fileBytes) bytes")
        }
        try validate(bytes)
        var reader = XMLReader(bytes: bytes, limits: limits)
        return try reader.document()
    }

    /// The error for `problem` on `line`; `KeePassXCXML` words its own the same way.
    static func failure(line: Int, _ problem: String) -> VaultError {
        .invalid("the XML export, line \(line): \(problem)")
    }

    /// Refuses bytes that are not UTF-8 and characters XML 1.0 does not allow.
    private static func validate(_ bytes: [UInt8]) throws {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var line = 1
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar == "\n" { line += 1 }
                guard isCharacter(scalar.value) else {
                    throw failure(line: line, "the character \(codePoint(scalar.value)) is not allowed in XML")
                }
            case .emptyInput: return
            case .error: throw failure(line: line, "the file is not UTF-8")
            }
        }
    }

    /// Whether XML 1.0 allows the code point `value` (its production Char).
    private static func isCharacter(_ value: UInt32) -> Bool {
        switch value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }

    /// "U+0001" for 1.
    private static func codePoint(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// The prolog, the root element and what follows it.
    private mutating func document() throws -> XMLElementNode {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }  // a byte-order mark
        let start = index
        var root: XMLElementNode?
        while true {
            skipWhitespace()
            guard index < bytes.count else { break }
            if starts("<!--") {
                try comment()
            } else if starts("<?") {
                try instruction(atStart: index == start)
            } else if starts("<!DOCTYPE") {
                throw failure("a DOCTYPE is refused (no entity is declared or expanded here)")
            } else if starts("<!") {
                throw failure("a declaration '<!' outside an element")
            } else if starts("<") {
                guard root == nil else { throw failure("a second root element") }
                root = try element()
            } else {
                throw failure("text outside the root element")
            }
        }
        guard let root else { throw failure("no root element") }
        return root
    }

    /// The element whose start tag is at `index`, with everything inside it; elements are
    /// kept on a stack, not in recursion, so the depth bound is the only limit.
    private mutating func element() throws -> XMLElementNode {
        var open: [XMLElementNode] = []
        var texts: [[UInt8]] = []
        defer {
            for level in texts.indices { Self.wipe(&texts[level]) }
        }
        var elements = 1
        let (root, closed) = try startTag()
        if closed { return root }
        open.append(root)
        texts.append([])
        while let level = open.indices.last {
            guard index < bytes.count else {
                throw failure("the element <\(open[level].name)> opened on line \(open[level].line) is not closed")
            }
            switch bytes[index] {
            case UInt8(ascii: "<") where starts("</"):
                let name = try endTag()
                guard name == open[level].name else {
                    throw failure(
                        "the end tag </\(name)> does not match <\(open[level].name)> opened on line "
                            + "\(open[level].line)")
                }
                var node = open.removeLast()
                var text = texts.removeLast()
                // Text is kept for elements without children (KeePassXC's values), not the
                // indentation between a container's children.
                node.text = node.children.isEmpty ? String(decoding: text, as: UTF8.self) : ""
                Self.wipe(&text)
                guard let parent = open.indices.last else { return node }
                open[parent].children.append(node)
            case UInt8(ascii: "<") where starts("<!--"): try comment()
            case UInt8(ascii: "<") where starts("<![CDATA["):
                try cdata(into: &texts[level])
                try checkText(texts[level])
            case UInt8(ascii: "<") where starts("<!DOCTYPE"):
                throw failure("a DOCTYPE is refused (no entity is declared or expanded here)")
            case UInt8(ascii: "<") where starts("<!"): throw failure("a declaration '<!' inside an element")
            case UInt8(ascii: "<") where starts("<?"): try instruction(atStart: false)
            case UInt8(ascii: "<"):
                guard open.count < limits.depth else {
                    throw failure("elements are nested more than \(limits.depth) deep")
                }
                elements += 1
                guard elements <= limits.elements else {
                    throw failure("more than \(limits.elements) elements")
                }
                let (child, closed) = try startTag()
                if closed {
                    open[level].children.append(child)
                } else {
                    open.append(child)
                    texts.append([])
                }
            case UInt8(ascii: "&"):
                try reference(into: &texts[level])
                try checkText(texts[level])
            case UInt8(ascii: "]") where starts("]]>"): throw failure("']]>' in text (write ]]&gt;)")
            default:
                take(into: &texts[level])
                try checkText(texts[level])
            }
        }
        throw failure("no root element")  // not reached: the loop returns the root when it closes
    }

    /// The start tag at `index` ('<'): the element, and whether it closed itself ("/>").
    private mutating func startTag() throws -> (XMLElementNode, closed: Bool) {
        let line = currentLine()
        index += 1
        let name = try self.name()
        let (attributes, ending) = try attributes(of: "<\(name)>", until: [">", "/>"])
        return (XMLElementNode(name: name, attributes: attributes, line: line), ending == "/>")
    }

    /// The end tag at `index` ("</"): its name.
    private mutating func endTag() throws -> String {
        index += 2
        let name = try self.name()
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else {
            throw failure("the end tag </\(name) is not closed by '>'")
        }
        index += 1
        return name
    }

    /// The attributes of the tag `tag` up to the first of `endings`, which is consumed
    /// and returned; an attribute given twice is refused.
    private mutating func attributes(of tag: String, until endings: [String]) throws -> ([String: String], String) {
        var attributes: [String: String] = [:]
        while true {
            let spaced = skipWhitespace()
            guard index < bytes.count else { throw failure("the tag \(tag) is not closed") }
            if let ending = endings.first(where: { starts($0) }) {
                index += ending.utf8.count
                return (attributes, ending)
            }
            guard spaced else { throw failure("expected a space or the end of the tag \(tag)") }
            let name = try self.name()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                throw failure("the attribute \(name) of \(tag) has no '='")
            }
            index += 1
            skipWhitespace()
            let value = try attributeValue(of: name)
            guard attributes.updateValue(value, forKey: name) == nil else {
                throw failure("the attribute \(name) is given twice in \(tag)")
            }
            guard attributes.count <= limits.attributesPerElement else {
                throw failure("more than \(limits.attributesPerElement) attributes in \(tag)")
            }
        }
    }

    /// The quoted attribute value at `index`, references resolved and each tab or line end
    /// a space, as XML normalizes attribute values.
    private mutating func attributeValue(of name: String) throws -> String {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
            throw failure("the value of the attribute \(name) is not in quotes")
        }
        let quote = bytes[index]
        index += 1
        var value: [UInt8] = []
        defer { Self.wipe(&value) }
        while true {
            guard index < bytes.count else { throw failure("the value of the attribute \(name) is not closed") }
            guard value.count <= limits.attributeBytes else {
                throw failure("the value of the attribute \(name) is longer than \(limits.attributeBytes) bytes")
            }
            switch bytes[index] {
            case quote:
                index += 1
                return String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "<"): throw failure("'<' in the value of the attribute \(name) (write &lt;)")
            case UInt8(ascii: "&"): try reference(into: &value)
            case UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                take(into: &value)
                value[value.count - 1] = UInt8(ascii: " ")
            default: take(into: &value)
            }
        }
    }

    /// The name at `index`: letters, digits, '_', ':', '-', '.' and any non-ASCII
    /// character, not starting with a digit, '-' or '.'.
    private mutating func name() throws -> String {
        let start = index
        while index < bytes.count, Self.isNameByte(bytes[index], first: index == start) {
            index += 1
            guard index - start <= limits.nameBytes else {
                throw failure("a name longer than \(limits.nameBytes) bytes")
            }
        }
        guard index < bytes.count else { throw failure("the file ends inside a tag") }
        guard index > start else { throw failure("expected a name") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// Whether `byte` may stand in a name (`first`: at its start).
    private static func isNameByte(_ byte: UInt8, first: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"),
            UInt8(ascii: ":"), 0x80...0xFF:
            return true
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."): return !first
        default: return false
        }
    }

    /// The reference at `index` ('&') appended to `buffer` as UTF-8: one of the five
    /// predefined entities or a character reference; any other is refused.
    private mutating func reference(into buffer: inout [UInt8]) throws {
        let searched = bytes[(index + 1)..<min(bytes.count, index + Self.longestReference)]
        guard let end = searched.firstIndex(of: UInt8(ascii: ";")) else {
            throw failure("a '&' that does not start a reference ended by ';' (write &amp;)")
        }
        let body = bytes[(index + 1)..<end]
        let text = String(decoding: body, as: UTF8.self)
        switch text {
        case "lt": buffer.append(UInt8(ascii: "<"))
        case "gt": buffer.append(UInt8(ascii: ">"))
        case "amp": buffer.append(UInt8(ascii: "&"))
        case "apos": buffer.append(UInt8(ascii: "'"))
        case "quot": buffer.append(UInt8(ascii: "\""))
        default:
            guard body.first == UInt8(ascii: "#") else {
                // Not echoed: a malformed value's text (a password) could follow the '&'.
                throw failure("an entity is refused: only &lt; &gt; &amp; &apos; &quot; are read")
            }
            let hex = body.dropFirst().first == UInt8(ascii: "x")
            let digits = body.dropFirst(hex ? 2 : 1)
            guard let scalar = Self.scalar(digits, radix: hex ? 16 : 10) else {
                throw failure("the character reference &\(text); is not a character XML allows")
            }
            UTF8.encode(scalar) { buffer.append($0) }
        }
        index = end + 1
    }

    /// The character whose code point `digits` spell in `radix`; nil if they are not
    /// digits, or XML does not allow the character.
    private static func scalar(_ digits: ArraySlice<UInt8>, radix: UInt32) -> Unicode.Scalar? {
        guard !digits.isEmpty else { return nil }
        var value: UInt32 = 0
        for byte in digits {
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: digit = UInt32(byte - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: digit = UInt32(byte - UInt8(ascii: "A")) + 10
            default: return nil
            }
            guard value <= 0x10FFFF else { return nil }  // no overflow: 0x10FFFF * 16 + 15 fits
            value = value * radix + digit
        }
        guard isCharacter(value) else { return nil }
        return Unicode.Scalar(value)
    }

    /// The CDATA section at `index` ("<![CDATA["), its content appended to `buffer`.
    private mutating func cdata(into buffer: inout [UInt8]) throws {
        index += 9
        guard let end = find("]]>") else { throw failure("a CDATA section is not closed by ']]>'") }
        while index < end { take(into: &buffer) }
        index = end + 3
    }

    /// Skips the comment at `index` ("<!--"), which may not hold "--".
    private mutating func comment() throws {
        index += 4
        guard let end = find("--") else { throw failure("a comment is not closed by '-->'") }
        index = end
        guard starts("-->") else { throw failure("'--' inside a comment") }
        index = end + 3
    }

    /// Skips the processing instruction at `index` ("<?"). At the start of the file one
    /// whose target is "xml" is the XML declaration, whose encoding must be UTF-8;
    /// anywhere else that target is refused.
    private mutating func instruction(atStart: Bool) throws {
        index += 2
        let target = try name()
        if target.lowercased() == "xml" {
            guard atStart, target == "xml" else { throw failure("an XML declaration that is not at the start") }
            let (pseudo, _) = try attributes(of: "<?xml ?>", until: ["?>"])
            guard pseudo["version"]?.hasPrefix("1.") == true else {
                throw failure("the XML declaration does not give version 1.x")
            }
            if let encoding = pseudo["encoding"], !["utf-8", "utf8"].contains(encoding.lowercased()) {
                throw failure("the file declares the encoding \(encoding); only UTF-8 is read")
            }
            return
        }
        guard let end = find("?>") else { throw failure("a processing instruction is not closed by '?>'") }
        guard end == index || [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) else {
            throw failure("expected a space after the processing instruction's target \(target)")
        }
        index = end + 2
    }

    /// Appends the byte at `index` to `buffer` and moves past it; "\r\n" and a lone "\r"
    /// become "\n".
    private mutating func take(into buffer: inout [UInt8]) {
        let byte = bytes[index]
        index += 1
        if byte != UInt8(ascii: "\r") {
            buffer.append(byte)
        } else {
            buffer.append(UInt8(ascii: "\n"))
            if index < bytes.count && bytes[index] == UInt8(ascii: "\n") { index += 1 }
        }
    }

    /// Moves past spaces, tabs and line ends; whether there were any.
    @discardableResult
    private mutating func skipWhitespace() -> Bool {
        let start = index
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        return index > start
    }

    /// Whether the bytes at `index` are `text`'s.
    private func starts(_ text: String) -> Bool {
        bytes[index...].starts(with: text.utf8)
    }

    /// Where `text` next occurs from `index` on.
    private func find(_ text: String) -> Int? {
        let pattern = Array(text.utf8)
        guard let first = pattern.first, bytes.count >= pattern.count else { return nil }
        var position = index
        while position <= bytes.count - pattern.count {
            if bytes[position] == first && bytes[position..<(position + pattern.count)].elementsEqual(pattern) {
                return position
            }
            position += 1
        }
        return nil
    }

    /// The line `index` is on (counted on from where the last call stopped).
    private mutating func currentLine() -> Int {
        while lineCountedTo < min(index, bytes.count) {
            if bytes[lineCountedTo] == UInt8(ascii: "\n") { line += 1 }
            lineCountedTo += 1
        }
        return line
    }

    /// Refuses an element's text longer than `limits.textBytes`.
    private mutating func checkText(_ text: [UInt8]) throws {
        guard text.count <= limits.textBytes else {
            throw failure("an element's text is longer than \(limits.textBytes) bytes")
        }
    }

    /// The error for `problem` where `index` is.
    private mutating func failure(_ problem: String) -> VaultError {
        Self.failure(line: currentLine(), problem)
    }

    /// Zeroes `buffer`.
    private static func wipe(_ buffer: inout [UInt8]) {
        buffer.withUnsafeMutableBytes { sr_explicit_bzero($0.baseAddress, $0.count) }
    }
}
