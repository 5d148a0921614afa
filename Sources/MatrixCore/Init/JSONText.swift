/// A JSON document built in code and written the way people write matrices: objects and arrays of objects
/// one member per line, arrays of plain values on one line, and parts marked ``inline`` (a step, a `store`
/// object) on a single line.
///
/// Keys keep the order they were given, so the output is stable and reads like `matrices/release.json`.
indirect enum JSONText: Sendable {
    case string(String)
    case int(Int)
    case bool(Bool)
    case array([JSONText])
    case object([(String, JSONText)])
    /// Written on one line wherever it appears.
    case inline(JSONText)

    /// The document as UTF-8 text with two-space indentation and a final newline.
    func rendered() -> String {
        var output = ""
        write(to: &output, indent: 0)
        return output + "\n"
    }

    private var isPlainValue: Bool {
        switch self {
        case .string, .int, .bool: true
        case .array, .object: false
        case .inline(let value): value.isPlainValue
        }
    }

    private func write(to output: inout String, indent: Int) {
        switch self {
        case .string, .int, .bool, .inline:
            writeCompact(to: &output)
        case .array(let elements):
            if elements.isEmpty || elements.allSatisfy(\.isPlainValue) {
                writeCompact(to: &output)
                return
            }
            output += "[\n"
            for (index, element) in elements.enumerated() {
                output += String(repeating: " ", count: indent + 2)
                element.write(to: &output, indent: indent + 2)
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
                value.write(to: &output, indent: indent + 2)
                output += index == members.count - 1 ? "\n" : ",\n"
            }
            output += String(repeating: " ", count: indent) + "}"
        }
    }

    private func writeCompact(to output: inout String) {
        switch self {
        case .string(let text): output += Self.quoted(text)
        case .int(let number): output += String(number)
        case .bool(let flag): output += flag ? "true" : "false"
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
    static func quoted(_ text: String) -> String {
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
