import MatrixJSON
import MatrixModel

/// GitHub Actions annotations: when `GITHUB_ACTIONS` is `true`, problems in a matrix and failing steps are also
/// written as workflow commands (`::error file=…,line=…,col=…,title=…::message`), which GitHub shows on the
/// file's line in the pull request and the run's summary. They go to stderr with the other diagnostics; the
/// runner reads workflow commands from both streams.
///
/// GitHub: https://docs.github.com/en/actions/writing-workflows/choosing-what-your-workflow-does/workflow-commands-for-github-actions#setting-an-error-message
struct GitHubAnnotations {
    /// At most this many annotations per command; GitHub shows only a few per step anyway, and a matrix with
    /// thousands of failing steps must not flood the log.
    static let limit = 50

    /// `error`, `warning` or `notice`.
    enum Level: String {
        case error, warning, notice
    }

    /// Whether the environment is a GitHub Actions runner.
    static func isEnabled(_ environment: [String: String]) -> Bool {
        environment["GITHUB_ACTIONS"] == "true"
    }

    /// One workflow command line, escaped as GitHub's toolkit escapes them: `%`, CR and LF in the message,
    /// and `:` and `,` too in property values.
    static func command(_ level: Level, message: String, file: String?, line: Int? = nil, column: Int? = nil, title: String? = nil) -> String {
        var properties: [String] = []
        if let file { properties.append("file=" + escapeProperty(file)) }
        if let line { properties.append("line=\(line)") }
        if let column { properties.append("col=\(column)") }
        if let title { properties.append("title=" + escapeProperty(title)) }
        return "::\(level.rawValue)" + (properties.isEmpty ? "" : " " + properties.joined(separator: ",")) + "::" + escapeData(message)
    }

    static func escapeData(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(of: "\n", with: "%0A")
    }

    static func escapeProperty(_ text: String) -> String {
        escapeData(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }

    /// The annotation of a matrix or catalog diagnostic: its file, line and column, its code as the title.
    static func command(for diagnostic: Diagnostic) -> String? {
        let level: Level
        switch diagnostic.severity {
        case .error: level = .error
        case .warning: level = .warning
        case .note: return nil
        }
        let message = diagnostic.message + (diagnostic.hint.map { "; \($0)" } ?? "")
        return command(level, message: message, file: diagnostic.file, line: diagnostic.location.line, column: diagnostic.location.column,
                       title: diagnostic.code.rawValue)
    }
}

/// Where each case's steps are written in a matrix file, for annotations of failing steps.
struct MatrixLocations: Sendable {
    /// The matrix as the user named it.
    let file: String
    /// By case id, the location of each step's object.
    let steps: [String: [SourceLocation]]

    /// Reads the step locations of `bytes` (a matrix file that loaded).
    init(file: String, bytes: [UInt8]) {
        self.file = file
        var steps: [String: [SourceLocation]] = [:]
        for element in JSONReader.read(bytes, file: file).value?.objectValue?["cases"]?.arrayValue ?? [] {
            guard let object = element.objectValue, let id = object["id"]?.stringValue else { continue }
            steps[id] = (object["steps"]?.arrayValue ?? []).map(\.location)
        }
        self.steps = steps
    }

    /// `FILE:LINE:COLUMN` of step `step` of case `id`, or `nil` when the matrix has no such step.
    func location(case id: String, step: Int) -> String? {
        guard let steps = steps[id], steps.indices.contains(step) else { return nil }
        return "\(file):\(steps[step].line):\(steps[step].column)"
    }

    /// The annotation of a step that failed or errored: at the step in the matrix, titled with the verdict, the
    /// case and the step.
    func command(for record: EvidenceRecord) -> String {
        let location = steps[record.case].flatMap { $0.indices.contains(record.step) ? $0[record.step] : nil }
        return GitHubAnnotations.command(.error, message: record.reason ?? record.verdict.rawValue, file: file, line: location?.line,
                                         column: location?.column,
                                         title: "\(record.verdict.rawValue.uppercased()) \(record.case) step \(record.step) (\(record.action.action.rawValue))")
    }
}
