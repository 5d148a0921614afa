import Foundation
import MatrixCore

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
public enum Reports {
    /// The formats a run directory holds after a run: JUnit, Markdown and HTML.
    public static let runDirectoryFormats: [ReportFormat] = [.junit, .markdown, .html]

    /// The reports a run directory holds, by file name (`junit.xml`, `summary.md`, `report.html`), UTF-8.
    ///
    /// - Parameters:
    ///   - records: the run's evidence, in any order (reports sort by `seq` and step).
    ///   - manifest: the run's manifest; its metadata, status and times appear in the reports.
    public static func renderAll(records: [EvidenceRecord], manifest: RunManifest) -> [String: Data] {
        var files: [String: Data] = [:]
        for format in runDirectoryFormats {
            files[format.fileName] = render(format, records: records, manifest: manifest)
        }
        return files
    }

    /// One report, UTF-8.
    public static func render(_ format: ReportFormat, records: [EvidenceRecord], manifest: RunManifest) -> Data {
        switch format {
        case .junit: Data(JUnitReport.render(records: records, manifest: manifest).utf8)
        case .markdown: Data(MarkdownSummary.render(records: records, manifest: manifest).utf8)
        case .html: Data(HTMLReport.render(records: records, manifest: manifest).utf8)
        case .json: RunReport(records: records, manifest: manifest).encoded()
        }
    }

    /// Re-renders one report from a run directory's `run.json` and `evidence.jsonl`.
    ///
    /// The manifest's counts are recomputed from the evidence read.
    /// - Throws: ``EvidenceReadError`` when the manifest or the evidence cannot be read.
    public static func render(_ format: ReportFormat, from directory: RunDirectory) throws -> Data {
        var manifest = try directory.readManifest()
        let records = try directory.readEvidence().records
        manifest.counts = RunCounts(records: records)
        return render(format, records: records, manifest: manifest)
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
    }

    /// The report format's version, ``currentVersion`` when written by this version.
    public var reportVersion: Int
    /// The run's manifest.
    public var manifest: RunManifest
    /// Every case, in the order it first appears in the evidence.
    public var cases: [CaseSummary]

    /// The report of `records` under `manifest`.
    public init(records: [EvidenceRecord], manifest: RunManifest) {
        self.reportVersion = Self.currentVersion
        self.manifest = manifest
        self.cases = CaseEvidence.group(records).map { matrixCase in
            CaseSummary(id: matrixCase.id, kind: matrixCase.kind, account: matrixCase.account.alias, verdict: matrixCase.verdict,
                        steps: matrixCase.counts,
                        firstProblem: matrixCase.firstProblem.map {
                            "step \($0.step) (\($0.action.action.rawValue)): " + ($0.reason ?? $0.verdict.rawValue)
                        })
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
