import MatrixJSON

extension Diagnostic {
    /// The parts of a diagnostic a test pins down, in one comparable line: `line:column severity code pointer`,
    /// e.g. `14:9 error MX013 /cases/2/steps/1/product`.
    public var summary: String {
        "\(location.line):\(location.column) \(severity.rawValue) \(code.rawValue) \(pointer.isEmpty ? "/" : pointer)"
    }
}

extension Array where Element == Diagnostic {
    /// ``Diagnostic/summary`` of each diagnostic, in order.
    public var summaries: [String] { map(\.summary) }
}

extension SourceLocation {
    /// `line:column`, the form ``Diagnostic/summary`` uses.
    public var text: String { "\(line):\(column)" }
}
