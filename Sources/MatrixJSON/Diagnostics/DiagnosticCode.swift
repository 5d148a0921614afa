/// A stable identifier for a kind of problem, `MX` followed by three digits.
///
/// Codes never change meaning once published; editors and CI annotations key on them.
/// `MX0xx` are JSON and matrix problems, `MX1xx` are `.storekit` catalog problems.
public struct DiagnosticCode: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    // MARK: Reading JSON
    /// The bytes are not valid JSON.
    public static let invalidJSON = DiagnosticCode(rawValue: "MX001")
    /// The bytes are not valid UTF-8.
    public static let invalidEncoding = DiagnosticCode(rawValue: "MX002")
    /// Arrays and objects nest deeper than the reader allows.
    public static let nestingTooDeep = DiagnosticCode(rawValue: "MX003")
    /// An object has the same key twice; the last one wins.
    public static let duplicateKey = DiagnosticCode(rawValue: "MX004")
    /// The file is empty.
    public static let emptyInput = DiagnosticCode(rawValue: "MX005")
    /// The file cannot be read at all: missing, a directory or FIFO, no permission, or too large (`validate
    /// --format json` reports it as a row; other commands stop with exit 66).
    public static let unreadableInput = DiagnosticCode(rawValue: "MX006")
    /// The file has more problems than are reported (``DiagnosticCollector/defaultLimit``); the rest of it was
    /// not checked, and it does not load.
    public static let tooManyProblems = DiagnosticCode(rawValue: "MX007")
    /// A string or key is longer than ``JSONTextLimit/maximumBytes``: names, ids and descriptions are copied
    /// into every record and report, so one absurd value would make gigabytes of evidence.
    public static let textTooLong = DiagnosticCode(rawValue: "MX008")

    // MARK: Structure
    /// A value has the wrong JSON type.
    public static let wrongType = DiagnosticCode(rawValue: "MX010")
    /// A required field is missing.
    public static let missingField = DiagnosticCode(rawValue: "MX011")
    /// A key the format does not define (a warning: it is ignored).
    public static let unknownKey = DiagnosticCode(rawValue: "MX012")
    /// A value outside the allowed set (an unknown purchase result, kind, state…).
    public static let invalidValue = DiagnosticCode(rawValue: "MX019")
}
