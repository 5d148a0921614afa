/// A position in a source file: 1-based line and 1-based column.
///
/// Columns count UTF-8 bytes from the start of the line, plus one, as compilers do.
public struct SourceLocation: Sendable, Hashable, Codable, Comparable {
    /// 1-based line number.
    public var line: Int
    /// 1-based column, in UTF-8 bytes.
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// The start of a file.
    public static let start = SourceLocation(line: 1, column: 1)

    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }
}

/// One problem found in user input: a matrix, a `.storekit` file, an answers file.
///
/// Diagnostics are collected, never printed by the code that finds them; front ends render them with
/// ``rendered`` as `file:line:column: severity: message (at /json/pointer); hint [code]`.
public struct Diagnostic: Sendable, Hashable, Codable {
    /// How bad the problem is. Any `error` stops a run before anything is performed or written.
    public enum Severity: String, Sendable, Hashable, Codable, Comparable {
        case error
        case warning
        case note

        private var rank: Int {
            switch self {
            case .error: 0
            case .warning: 1
            case .note: 2
            }
        }

        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    public var severity: Severity
    /// A stable code such as `MX013`; see ``DiagnosticCode``.
    public var code: DiagnosticCode
    /// What is wrong, in one sentence without a trailing period.
    public var message: String
    /// The file as the user named it, or `nil` for input that did not come from a file.
    public var file: String?
    /// JSON Pointer (RFC 6901) to the offending value, `""` for the whole document.
    public var pointer: String
    /// Where the offending value starts.
    public var location: SourceLocation
    /// How to fix it, e.g. `did you mean "com.example.pro"?`.
    public var hint: String?

    public init(
        _ severity: Severity, _ code: DiagnosticCode, _ message: String,
        file: String? = nil, pointer: String, location: SourceLocation, hint: String? = nil
    ) {
        self.severity = severity
        self.code = code
        self.message = message
        self.file = file
        self.pointer = pointer
        self.location = location
        self.hint = hint
    }

    /// The compiler-style line: `file:line:column: error: message (at /pointer); hint [MX013]`.
    public var rendered: String {
        var text = "\(file ?? "<input>"):\(location.line):\(location.column): \(severity.rawValue): \(message)"
        text += " (at \(pointer.isEmpty ? "/" : pointer))"
        if let hint { text += "; \(hint)" }
        text += " [\(code.rawValue)]"
        return text
    }
}

extension Array where Element == Diagnostic {
    /// Whether any diagnostic is an error.
    public var hasErrors: Bool { contains { $0.severity == .error } }

    /// Sorted by file, then position, then severity, so output is stable.
    public var sortedByLocation: [Diagnostic] {
        sorted {
            ($0.file ?? "", $0.location.line, $0.location.column, $0.severity, $0.code.rawValue)
                < ($1.file ?? "", $1.location.line, $1.location.column, $1.severity, $1.code.rawValue)
        }
    }
}
