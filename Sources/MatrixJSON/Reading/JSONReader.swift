import Foundation
/// Reads JSON text (RFC 8259) into a ``JSONValue`` tree with source locations.
///
/// The reader works on UTF-8 bytes, accepts and skips a leading byte order mark, and stops at the first
/// syntax error with a located diagnostic: after a syntax error nothing later in the file can be trusted.
/// Nesting deeper than ``maximumDepth`` is refused instead of exhausting the stack.
public struct JSONReader {
    /// The deepest nesting of arrays and objects accepted.
    public static let maximumDepth = 512

    /// Reads `bytes` as one JSON document, keeping the warnings of a document that reads.
    ///
    /// - Parameters:
    ///   - bytes: the document, UTF-8.
    ///   - file: the name used in diagnostics.
    /// - Returns: the value (`nil` after a syntax error) and every diagnostic: at most one error, plus
    ///   warnings such as duplicate keys (MX004).
    public static func read(_ bytes: some Collection<UInt8>, file: String? = nil) -> JSONReadResult {
        var reader = Parser(bytes: Array(bytes), file: file)
        return reader.parseDocument()
    }

    /// Parses `bytes` as one JSON document.
    ///
    /// Warnings of a document that reads are dropped; use ``read(_:file:)`` to report them.
    ///
    /// - Parameters:
    ///   - bytes: the document, UTF-8.
    ///   - file: the name used in diagnostics.
    /// - Returns: the value, or the diagnostics (one error, plus warnings such as duplicate keys).
    public static func parse(_ bytes: some Collection<UInt8>, file: String? = nil) -> Result<JSONValue, JSONReadFailure> {
        let result = read(bytes, file: file)
        guard let value = result.value else { return .failure(JSONReadFailure(diagnostics: result.diagnostics)) }
        return .success(value)
    }
}

/// What reading a document gave: the value when there was no error, and every diagnostic.
public struct JSONReadResult: Sendable {
    public var value: JSONValue?
    public var diagnostics: [Diagnostic]
}

/// Why a document could not be read: every diagnostic found before reading stopped.
public struct JSONReadFailure: Error, Sendable {
    public var diagnostics: [Diagnostic]
}

/// Builds a JSON Pointer (RFC 6901) from reference tokens.
public enum JSONPointer {
    /// Escapes one reference token: `~` → `~0`, `/` → `~1`.
    public static func escape(_ token: String) -> String {
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return token }
        return token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    /// Appends a key or index to a pointer: `append("/cases", 2)` is `/cases/2`.
    public static func append(_ pointer: String, _ token: String) -> String {
        pointer + "/" + escape(token)
    }

    public static func append(_ pointer: String, _ index: Int) -> String {
        pointer + "/" + String(index)
    }
}

private struct Parser {
    let bytes: [UInt8]
    let file: String?
    var index = 0
    var line = 1
    var lineStart = 0
    var warnings: [Diagnostic] = []
    /// Where the value being read is: the keys and indices from the root.
    var path: [Token] = []

    init(bytes: [UInt8], file: String?) {
        self.bytes = bytes
        self.file = file
    }

    struct Stop: Error {
        var diagnostic: Diagnostic
    }

    var location: SourceLocation {
        SourceLocation(line: line, column: index - lineStart + 1)
    }

    mutating func parseDocument() -> JSONReadResult {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            index = 3
            lineStart = 3
        }
        do throws(Stop) {
            skipWhitespace()
            if index >= bytes.count {
                throw fail(.emptyInput, "the file is empty")
            }
            let value = try parseValue(depth: 0)
            skipWhitespace()
            if index < bytes.count {
                throw fail(.invalidJSON, "unexpected \(describeCurrent()) after the end of the document")
            }
            return JSONReadResult(value: value, diagnostics: warnings)
        } catch {
            var diagnostic = error.diagnostic
            // A document that does not start like JSON at all is most often YAML or another format.
            if diagnostic.code == .invalidJSON, diagnostic.hint == nil, startsLikeYAML {
                diagnostic.hint = "the file does not start like JSON; matrices and .storekit files are JSON (YAML is not read)"
            }
            return JSONReadResult(value: nil, diagnostics: [diagnostic] + warnings)
        }
    }

    /// Whether the document starts with what YAML (or an INI or text file) starts with and JSON never does: a
    /// letter other than the start of `true`, `false` or `null`, a `#` comment, or a `-` not before a digit.
    private var startsLikeYAML: Bool {
        guard let start = bytes.firstIndex(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }) else { return false }
        let rest = bytes[start...]
        for literal in ["true", "false", "null"] where rest.first == literal.utf8.first {
            // A literal cut short is a truncated document; `null: x` or `nullable: 1` are YAML.
            if literal.utf8.starts(with: rest) { return false }
            guard rest.starts(with: literal.utf8) else { return true }
            let after = rest.dropFirst(literal.utf8.count).first
            return after.map { $0 == UInt8(ascii: ":") || (0x61...0x7A).contains($0) || $0 == UInt8(ascii: "_") } ?? false
        }
        let first = rest[start]
        switch first {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "#"):
            return true
        case UInt8(ascii: "-"):
            return !(rest.dropFirst().first.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? false)
        default:
            return false
        }
    }

    /// A syntax error at the current position; an encoding error instead when the current byte is not UTF-8.
    private func fail(_ code: DiagnosticCode, _ message: String, hint: String? = nil) -> Stop {
        if code == .invalidJSON, index < bytes.count, bytes[index] >= 0x80 {
            var probe = self
            do throws(Stop) {
                _ = try probe.decodeUTF8Scalar()
            } catch {
                return error
            }
        }
        var hint = hint
        if code == .invalidJSON, hint == nil, startsComment {
            hint = "JSON has no comments; remove it"
        }
        return Stop(diagnostic: Diagnostic(.error, code, message, file: file, pointer: pointer, location: location, hint: hint))
    }

    /// Whether the current position starts a `//` or `/*` comment, as JSON5 and JavaScript allow.
    private var startsComment: Bool {
        index + 1 < bytes.count && bytes[index] == UInt8(ascii: "/") && (bytes[index + 1] == UInt8(ascii: "/") || bytes[index + 1] == UInt8(ascii: "*"))
    }

    /// A key or index on the way from the root to the value being read.
    enum Token {
        case key(String)
        case index(Int)
    }

    /// The JSON Pointer of the value being read, made only for a diagnostic.
    private var pointer: String {
        path.reduce(into: "") { pointer, token in
            switch token {
            case .key(let key): pointer = JSONPointer.append(pointer, key)
            case .index(let index): pointer = JSONPointer.append(pointer, index)
            }
        }
    }

    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of file" }
        let b = bytes[index]
        if b >= 0x20 && b < 0x7F { return "character '\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x" + String(b, radix: 16, uppercase: true)
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0D:
                index += 1
            case 0x0A:
                index += 1
                line += 1
                lineStart = index
            default:
                return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(Stop) -> JSONValue {
        guard index < bytes.count else {
            throw fail(.invalidJSON, "unexpected end of file, expected a value")
        }
        let start = location
        switch bytes[index] {
        case UInt8(ascii: "{"):
            return JSONValue(.object(try parseObject(depth: depth + 1)), at: start)
        case UInt8(ascii: "["):
            return JSONValue(.array(try parseArray(depth: depth + 1)), at: start)
        case UInt8(ascii: "\""):
            return JSONValue(.string(try parseString()), at: start)
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return JSONValue(.bool(true), at: start)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return JSONValue(.bool(false), at: start)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return JSONValue(.null, at: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONValue(.number(try parseNumber()), at: start)
        default:
            throw fail(.invalidJSON, "unexpected \(describeCurrent()), expected a value")
        }
    }

    mutating func expectLiteral(_ literal: String) throws(Stop) {
        for b in literal.utf8 {
            guard index < bytes.count, bytes[index] == b else {
                throw fail(.invalidJSON, "unexpected \(describeCurrent()), expected '\(literal)'")
            }
            index += 1
        }
    }

    mutating func parseObject(depth: Int) throws(Stop) -> JSONObject {
        if depth > JSONReader.maximumDepth {
            throw fail(.nestingTooDeep, "arrays and objects nest deeper than \(JSONReader.maximumDepth) levels")
        }
        index += 1  // {
        var object = JSONObject()
        var seen = Set<String>()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return object
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw fail(.invalidJSON, "unexpected \(describeCurrent()), expected a key in double quotes")
            }
            let keyLocation = location
            let key = try parseString()
            path.append(.key(key))
            // Warnings beyond what a collector keeps would only be dropped later, after costing memory.
            if !seen.insert(key).inserted, warnings.count <= DiagnosticCollector.defaultLimit {
                warnings.append(Diagnostic(
                    .warning, .duplicateKey, "duplicate key \"\(key.utf8.count > 80 ? String(key.prefix(40)) + "…" : key)\"; the last one is used",
                    file: file, pointer: pointer, location: keyLocation))
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw fail(.invalidJSON, "unexpected \(describeCurrent()), expected ':' after key \"\(key)\"")
            }
            index += 1
            skipWhitespace()
            let value = try parseValue(depth: depth)
            path.removeLast()
            object.members.append(.init(key: key, keyLocation: keyLocation, value: value))
            skipWhitespace()
            guard index < bytes.count else {
                throw fail(.invalidJSON, "unexpected end of file, expected ',' or '}'")
            }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                try refuseTrailingComma(before: "}")
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return object
            }
            throw fail(.invalidJSON, "unexpected \(describeCurrent()), expected ',' or '}'",
                       hint: bytes[index] == UInt8(ascii: "\"") ? "is a comma missing?" : nil)
        }
    }

    /// After a comma: a closing `close` next is a trailing comma, which JSON does not allow.
    mutating func refuseTrailingComma(before close: Character) throws(Stop) {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == close.asciiValue else { return }
        throw fail(.invalidJSON, "a comma before '\(close)': JSON allows no trailing comma",
                   hint: "remove the last comma")
    }

    mutating func parseArray(depth: Int) throws(Stop) -> [JSONValue] {
        if depth > JSONReader.maximumDepth {
            throw fail(.nestingTooDeep, "arrays and objects nest deeper than \(JSONReader.maximumDepth) levels")
        }
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return elements
        }
        while true {
            skipWhitespace()
            path.append(.index(elements.count))
            elements.append(try parseValue(depth: depth))
            path.removeLast()
            skipWhitespace()
            guard index < bytes.count else {
                throw fail(.invalidJSON, "unexpected end of file, expected ',' or ']'")
            }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                path.append(.index(elements.count))
                try refuseTrailingComma(before: "]")
                path.removeLast()
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return elements
            }
            let startsValue = [UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\"")].contains(bytes[index])
            throw fail(.invalidJSON, "unexpected \(describeCurrent()), expected ',' or ']'",
                       hint: startsValue ? "is a comma missing?" : nil)
        }
    }

    mutating func parseNumber() throws(Stop) -> String {
        let start = index
        func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else {
            throw fail(.invalidJSON, "unexpected \(describeCurrent()) in a number")
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw fail(.invalidJSON, "expected a digit after the decimal point")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw fail(.invalidJSON, "expected a digit in the exponent")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    mutating func parseString() throws(Stop) -> String {
        index += 1  // opening quote
        // Most strings are printable ASCII without escapes: take them whole.
        let start = index
        while index < bytes.count, bytes[index] >= 0x20, bytes[index] < 0x80, bytes[index] != UInt8(ascii: "\""),
              bytes[index] != UInt8(ascii: "\\") {
            index += 1
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            index += 1
            return String(decoding: bytes[start..<(index - 1)], as: UTF8.self)
        }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: bytes[start..<index].lazy.map { Unicode.Scalar($0) })
        while true {
            guard index < bytes.count else {
                throw fail(.invalidJSON, "unterminated string")
            }
            let b = bytes[index]
            switch b {
            case UInt8(ascii: "\""):
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else {
                    throw fail(.invalidJSON, "unterminated string")
                }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    scalars.append(try parseUnicodeEscape())
                default:
                    index -= 1
                    throw fail(.invalidJSON, "invalid escape sequence in a string")
                }
            case 0x00..<0x20:
                throw fail(.invalidJSON, "control character in a string (write it as an escape such as \\n)")
            case 0x00..<0x80:
                scalars.append(Unicode.Scalar(b))
                index += 1
            default:
                scalars.append(try decodeUTF8Scalar())
            }
        }
    }

    mutating func parseHex4() throws(Stop) -> UInt32 {
        guard index + 4 <= bytes.count else {
            throw fail(.invalidJSON, "incomplete \\u escape")
        }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let digit: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw fail(.invalidJSON, "invalid hexadecimal digit in a \\u escape")
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }

    mutating func parseUnicodeEscape() throws(Stop) -> Unicode.Scalar {
        let first = try parseHex4()
        if (0xD800...0xDBFF).contains(first) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw fail(.invalidJSON, "unpaired UTF-16 surrogate in a \\u escape")
            }
            index += 2
            let second = try parseHex4()
            guard (0xDC00...0xDFFF).contains(second),
                  let scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
            else {
                throw fail(.invalidJSON, "unpaired UTF-16 surrogate in a \\u escape")
            }
            return scalar
        }
        guard let scalar = Unicode.Scalar(first) else {
            throw fail(.invalidJSON, "unpaired UTF-16 surrogate in a \\u escape")
        }
        return scalar
    }

    /// Decodes one multi-byte UTF-8 sequence starting at `index`.
    mutating func decodeUTF8Scalar() throws(Stop) -> Unicode.Scalar {
        let lead = bytes[index]
        let length: Int
        var value: UInt32
        switch lead {
        case 0xC2...0xDF: length = 2; value = UInt32(lead & 0x1F)
        case 0xE0...0xEF: length = 3; value = UInt32(lead & 0x0F)
        case 0xF0...0xF4: length = 4; value = UInt32(lead & 0x07)
        default:
            throw fail(.invalidEncoding, "invalid UTF-8 byte 0x\(String(lead, radix: 16, uppercase: true))",
                       hint: "save the file as UTF-8")
        }
        guard index + length <= bytes.count else {
            throw fail(.invalidEncoding, "truncated UTF-8 sequence", hint: "save the file as UTF-8")
        }
        for offset in 1..<length {
            let b = bytes[index + offset]
            guard b & 0xC0 == 0x80 else {
                throw fail(.invalidEncoding, "invalid UTF-8 sequence", hint: "save the file as UTF-8")
            }
            value = value << 6 | UInt32(b & 0x3F)
        }
        let minimum: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000
        guard value >= minimum, let scalar = Unicode.Scalar(value) else {
            throw fail(.invalidEncoding, "invalid UTF-8 sequence", hint: "save the file as UTF-8")
        }
        index += length
        return scalar
    }
}
