import Foundation
import MatrixCore

/// Writes JSON text from a ``JSONValue`` tree, keeping member order and numbers exactly as read, so a signed
/// payload prints as it was signed (fractional milliseconds included), only re-indented.
enum JSONText {
    /// Pretty-printed text with two-space indentation and no trailing newline.
    static func pretty(_ value: JSONValue) -> String {
        var out = ""
        write(value, indent: 0, into: &out)
        return out
    }

    /// Re-indents JSON bytes; `nil` when they are not JSON.
    static func pretty(_ bytes: some Collection<UInt8>) -> String? {
        guard case .success(let value) = JSONReader.parse(bytes) else { return nil }
        return pretty(value)
    }

    /// Parses JSON bytes into a tree to embed in other output; `nil` when they are not JSON.
    static func parse(_ bytes: some Collection<UInt8>) -> JSONValue? {
        guard case .success(let value) = JSONReader.parse(bytes) else { return nil }
        return value
    }

    // MARK: - Building values

    static func string(_ text: String) -> JSONValue { JSONValue(.string(text)) }
    static func string(_ text: String?) -> JSONValue { text.map(string) ?? JSONValue(.null) }
    static func number(_ value: Int) -> JSONValue { JSONValue(.number(String(value))) }
    static func number(_ value: Double) -> JSONValue { JSONValue(.number(String(format: "%.3f", value))) }
    static func bool(_ value: Bool) -> JSONValue { JSONValue(.bool(value)) }
    static func array(_ values: [JSONValue]) -> JSONValue { JSONValue(.array(values)) }

    /// An object with members in the given order; `nil` values are left out.
    static func object(_ members: KeyValuePairs<String, JSONValue?>) -> JSONValue {
        JSONValue(.object(JSONObject(members: members.compactMap { key, value in
            value.map { JSONObject.Member(key: key, keyLocation: .start, value: $0) }
        })))
    }

    // MARK: - Writing

    private static func write(_ value: JSONValue, indent: Int, into out: inout String) {
        switch value.kind {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .number(let text): out += text
        case .string(let text): writeString(text, into: &out)
        case .array(let items):
            guard !items.isEmpty else { out += "[]"; return }
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += String(repeating: "  ", count: indent + 1)
                write(item, indent: indent + 1, into: &out)
                out += index == items.count - 1 ? "\n" : ",\n"
            }
            out += String(repeating: "  ", count: indent) + "]"
        case .object(let object):
            guard !object.members.isEmpty else { out += "{}"; return }
            out += "{\n"
            for (index, member) in object.members.enumerated() {
                out += String(repeating: "  ", count: indent + 1)
                writeString(member.key, into: &out)
                out += ": "
                write(member.value, indent: indent + 1, into: &out)
                out += index == object.members.count - 1 ? "\n" : ",\n"
            }
            out += String(repeating: "  ", count: indent) + "}"
        }
    }

    private static func writeString(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let s where s.value < 0x20: out += String(format: "\\u%04x", s.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
