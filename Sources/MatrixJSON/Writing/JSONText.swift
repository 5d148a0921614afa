import Foundation

/// A JSON document built in code, or re-indented from bytes, and written as text for people.
///
/// Keys keep the order they were given and numbers keep the text they were read with, so output is stable and a
/// signed payload prints as it was signed (fractional milliseconds included). Two styles:
/// - ``Style/expanded``: every non-empty array and object spread over lines, two spaces per level (what
///   `matrix verify` and `matrix pki sign` print);
/// - ``Style/authoring``: as people write matrices — objects and arrays of objects one member per line, arrays of
///   plain values on one line, and parts marked ``inline`` (a step, a `store` object) on a single line.
///
/// Strings are escaped the same way in both: `"` and `\`, newline, carriage return and tab by their short
/// escapes, other control characters as `\u00xx`, everything else as is. For evidence, which must match what
/// `JSONEncoder` writes byte for byte, use ``CompactJSONWriter``.
public indirect enum JSONText: Sendable {
    case null
    case bool(Bool)
    /// A number, written exactly as this text.
    case number(String)
    case string(String)
    case array([JSONText])
    /// Members in order.
    case object([(String, JSONText)])
    /// Written on one line wherever it appears (``Style/authoring``).
    case inline(JSONText)

    /// How a document is laid out.
    public enum Style: Sendable {
        case expanded
        case authoring
    }

    // MARK: Building

    /// An integer.
    public static func int(_ value: Int) -> JSONText { .number(String(value)) }

    /// A decimal with three digits after the point (seconds with milliseconds, rates).
    public static func decimal(_ value: Double) -> JSONText { .number(String(format: "%.3f", value)) }

    /// A string, or `null` when there is none.
    public static func optional(_ text: String?) -> JSONText { text.map(JSONText.string) ?? .null }

    /// An object of the members whose value is not `nil`, in the given order.
    public static func fields(_ members: KeyValuePairs<String, JSONText?>) -> JSONText {
        .object(members.compactMap { key, value in value.map { (key, $0) } })
    }

    /// The tree of a value read with ``JSONReader``: member order and number text as read.
    public init(_ value: JSONValue) {
        switch value.kind {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .number(let text): self = .number(text)
        case .string(let text): self = .string(text)
        case .array(let items): self = .array(items.map(JSONText.init))
        case .object(let object): self = .object(object.members.map { ($0.key, JSONText($0.value)) })
        }
    }

    /// The JSON `bytes` hold, as a tree to embed in other output; `nil` when they are not JSON.
    public init?(parsing bytes: some Collection<UInt8>) {
        guard case .success(let value) = JSONReader.parse(bytes) else { return nil }
        self.init(value)
    }

    // MARK: Writing

    /// The document as text, without a final newline.
    public func text(_ style: Style) -> String {
        var output = ""
        write(to: &output, indent: 0, style: style)
        return output
    }

    /// Re-indents JSON bytes (``Style/expanded``); `nil` when they are not JSON.
    public static func expanded(_ bytes: some Collection<UInt8>) -> String? {
        JSONText(parsing: bytes)?.text(.expanded)
    }

    private var isPlainValue: Bool {
        switch self {
        case .null, .bool, .number, .string: true
        case .array, .object: false
        case .inline(let value): value.isPlainValue
        }
    }

    private func write(to output: inout String, indent: Int, style: Style) {
        switch self {
        case .null, .bool, .number, .string:
            writeCompact(to: &output)
        case .inline(let value):
            if style == .authoring { writeCompact(to: &output) } else { value.write(to: &output, indent: indent, style: style) }
        case .array(let elements):
            if elements.isEmpty || (style == .authoring && elements.allSatisfy(\.isPlainValue)) {
                writeCompact(to: &output)
                return
            }
            output += "[\n"
            for (index, element) in elements.enumerated() {
                output += String(repeating: " ", count: indent + 2)
                element.write(to: &output, indent: indent + 2, style: style)
                output += index == elements.count - 1 ? "\n" : ",\n"
            }
            output += String(repeating: " ", count: indent) + "]"
        case .object(let members):
            if members.isEmpty {
                output += "{}"
                return
            }
            output += "{\n"
            for (index, (key, value)) in members.enumerated() {
                output += String(repeating: " ", count: indent + 2) + Self.quoted(key) + ": "
                value.write(to: &output, indent: indent + 2, style: style)
                output += index == members.count - 1 ? "\n" : ",\n"
            }
            output += String(repeating: " ", count: indent) + "}"
        }
    }

    /// The value on one line: `[1, 2]`, `{"a": 1}`.
    private func writeCompact(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .number(let text): output += text
        case .string(let text): output += Self.quoted(text)
        case .inline(let value): value.writeCompact(to: &output)
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += ", " }
                element.writeCompact(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { output += ", " }
                output += Self.quoted(key) + ": "
                value.writeCompact(to: &output)
            }
            output += "}"
        }
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped, everything else as is.
    public static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
