import Foundation
import MatrixModel

/// A report `matrix` can render from a run's evidence.
public enum ReportFormat: String, Sendable, Hashable, CaseIterable {
    /// JUnit XML, `junit.xml`.
    case junit
    /// GitHub-flavoured Markdown, `summary.md`.
    case markdown
    /// One self-contained page, `report.html`.
    case html
    /// The manifest with per-case results, `report.json` (see ``RunReport``).
    case json

    /// The format a file name's extension names: `.xml` JUnit, `.md` or `.markdown` Markdown, `.html` or `.htm`
    /// HTML, `.json` JSON (any case); `nil` for other names.
    public init?(extensionOf path: String) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        switch name[name.index(after: dot)...].lowercased() {
        case "xml": self = .junit
        case "md", "markdown": self = .markdown
        case "html", "htm": self = .html
        case "json": self = .json
        default: return nil
        }
    }

    /// The file the format is written to in a run directory.
    public var fileName: String {
        switch self {
        case .junit: JUnitReport.fileName
        case .markdown: MarkdownSummary.fileName
        case .html: HTMLReport.fileName
        case .json: RunReport.fileName
        }
    }
}

/// Renders reports from evidence records and a manifest alone, so that any run directory can be re-rendered.
///
/// Reports of a run directory are rendered while its evidence is read one case at a time (see
/// ``write(_:from:manifest:to:)``), so memory does not grow with the run. Runs of more than 1,000 cases get
/// shorter human reports: `summary.md` details the first 500 failing or erroring steps and counts the rest,
/// `report.html` has a section for each of the first 500 cases that did not pass; every case is in their
/// tables and every step in `junit.xml`.
public enum Reports {
    /// The formats a run directory holds after a run: JUnit, Markdown and HTML.
    public static let runDirectoryFormats: [ReportFormat] = [.junit, .markdown, .html]

    /// The reports a run directory holds, by file name (`junit.xml`, `summary.md`, `report.html`), UTF-8.
    ///
    /// - Parameters:
    ///   - records: the run's evidence, in any order (reports sort by `seq` and step).
    ///   - manifest: the run's manifest; its metadata, status and times appear in the reports.
    /// - Throws: ``EvidenceWriteError`` when a report cannot be composed (in memory this means a bug).
    public static func renderAll(records: [EvidenceRecord], manifest: RunManifest) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for format in runDirectoryFormats {
            files[format.fileName] = try render(format, records: records, manifest: manifest)
        }
        return files
    }

    /// One report, UTF-8.
    /// - Throws: ``EvidenceWriteError`` when the report cannot be composed (in memory this means a bug); a
    ///   report is never left empty in silence.
    public static func render(_ format: ReportFormat, records: [EvidenceRecord], manifest: RunManifest) throws -> Data {
        let composer = try ReportComposer(formats: [format], spoolDirectory: nil)
        defer { composer.close() }
        composer.unfinished = manifest.unfinished
        let sink = MemorySink()
        for matrixCase in CaseEvidence.group(records) { try composer.add(matrixCase) }
        try composer.write(format, manifest: manifest, to: sink)
        return Data(sink.bytes)
    }
}

/// A run as JSON for other tools: the manifest and each case's result. Versioned by `reportVersion`.
public struct RunReport: Sendable, Hashable, Codable {
    /// `report.json`.
    public static let fileName = "report.json"
    /// The `reportVersion` this version writes.
    public static let currentVersion = 1

    /// One case's result.
    public struct CaseSummary: Sendable, Hashable, Codable {
        /// The case's `id`.
        public var id: String
        /// The case's `kind`.
        public var kind: String
        /// The alias of the case's account.
        public var account: String
        /// The case's worst step verdict.
        public var verdict: Verdict
        /// Step counts by verdict.
        public var steps: VerdictCounts
        /// The first step that neither passed nor was skipped: `step 1 (purchase): <reason>`.
        public var firstProblem: String?
        /// `true` when the run stopped during the case (its `verdict` covers only the steps recorded); absent
        /// otherwise.
        public var unfinished: Bool?
    }

    /// The report format's version, ``currentVersion`` when written by this version.
    public var reportVersion: Int
    /// The run's manifest.
    public var manifest: RunManifest
    /// Every case, in the order it first appears in the evidence.
    public var cases: [CaseSummary]

    /// The report of `records` under `manifest`.
    public init(records: [EvidenceRecord], manifest: RunManifest) {
        let unfinished = manifest.unfinished
        self.init(cases: CaseEvidence.group(records).map { CaseOverview($0, unfinished: unfinished.contains($0.id)) }, manifest: manifest)
    }

    /// The report of cases already summarised, under `manifest`.
    init(cases: [CaseOverview], manifest: RunManifest) {
        self.reportVersion = Self.currentVersion
        self.manifest = manifest
        self.cases = cases.map { matrixCase in
            CaseSummary(id: matrixCase.id, kind: matrixCase.kind, account: matrixCase.account.alias, verdict: matrixCase.verdict,
                        steps: matrixCase.counts, firstProblem: matrixCase.firstProblem.map { $0.text(orElse: \.rawValue) },
                        unfinished: matrixCase.unfinished ? true : nil)
        }
    }

    /// Pretty-printed JSON with sorted keys and a trailing newline.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = (try? encoder.encode(self)) ?? Data()
        data.append(0x0A)
        return data
    }
}
