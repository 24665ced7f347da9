// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/// How much of an export `import --from keepassxc` reads before it refuses the file: a
/// file of the largest accepted size must not take gigabytes or minutes (each element a
/// node, each attribute a dictionary entry), and every refusal names the limit.
/// `defaults` are several times what a KeePassXC export of 10,000 entries needs; the
/// fuzzers run with small ones, so that their seeds cross each limit.
public struct ImportLimits: Sendable {
    /// The largest file, in bytes (also `import`'s limit for standard input).
    public var fileBytes = 256 << 20
    /// How deeply XML elements may nest, the root element counting as 1.
    public var depth = 256
    /// How many XML elements a document may have (a KeePassXC export of 10,000 entries
    /// has about 300,000).
    public var elements = 1 << 21
    /// How many attributes one XML element may have (KeePassXC writes at most 2).
    public var attributesPerElement = 16
    /// The longest XML name (element or attribute), in bytes.
    public var nameBytes = 256
    /// The longest attribute value, in bytes, references resolved.
    public var attributeBytes = 4096
    /// The longest text of one element, in bytes (a value the vault keeps is at most 1 MiB;
    /// notes, which are not imported, may be longer).
    public var textBytes = 16 << 20
    /// How many entries an export may have (XML `<Entry>` elements, CSV rows).
    public var entries = 100_000
    /// How many columns a CSV row may have (KeePassXC writes 9).
    public var columns = 64
    /// The longest CSV field, in bytes.
    public var fieldBytes = 16 << 20
    /// The longest CSV line (up to a line end, inside a quoted field or not), in bytes.
    public var lineBytes = 16 << 20

    /// The limits `import` applies.
    public static let defaults = ImportLimits()

    /// Limits as given; the unnamed ones are `defaults`'.
    public init() {}
}
