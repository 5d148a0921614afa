import Foundation
import FileIO
import MatrixModel

/// Renders reports from a run's cases given one at a time, keeping only a ``CaseOverview`` per case.
///
/// A report's beginning needs totals known only at the end (JUnit's root counts, the Markdown and HTML
/// tables of cases), so the per-case parts are set aside in a ``Spool`` as the cases arrive and copied after the
/// beginning when the report is written. Memory stays at the overviews plus one case's records, whatever the
/// size of the run.
///
/// Large runs get shorter human reports: `summary.md` details the first ``detailedProblemLimit`` failing or
/// erroring steps and counts the rest; `report.html` has a section for every case when the run has at most
/// ``allCaseSectionsLimit`` cases, and otherwise for the first ``detailedProblemLimit`` cases that did not pass.
/// Every case stays in both tables, and `junit.xml` always has every step.
package final class ReportComposer {
    /// Runs with at most this many cases have an HTML section for every case.
    static let allCaseSectionsLimit = 1000
    /// How many failing steps `summary.md` details, and how many cases that did not pass get an HTML section
    /// in a run larger than ``allCaseSectionsLimit``.
    static let detailedProblemLimit = 500

    let formats: Set<ReportFormat>
    /// Cases that started and did not end (``RunManifest/unfinishedCases``): set before they are added, they are
    /// labelled INTERRUPTED and left out of the case counts.
    package var unfinished: Set<String> = []
    /// The cases so far, in the order they arrived.
    private(set) var cases: [CaseOverview] = []
    private(set) var steps = VerdictCounts()
    /// Steps that passed with none of their expectation observed (``EvidenceRecord/passedWithNothingObserved``):
    /// how many, and the first ``UnjudgedPasses/listed`` of them by case and step.
    private(set) var unjudged = UnjudgedPasses()
    private var milliseconds: Int64 = 0
    private let junit: Spool?
    private let markdown: Spool?
    /// The rows of `summary.md`'s table of cases.
    private let markdownRows: Spool?
    private var markdownBlocks = 0
    private var markdownOmitted = 0
    private let html: Spool?
    /// HTML case sections written: the case's index, where its section is, and whether the case did not pass.
    private var htmlSections: [(index: Int, range: Range<Int64>, problem: Bool)] = []
    private var htmlProblemSections = 0
    /// The directory of the spool files, kept while the composer lives.
    private let scratch: ScratchDirectory?

    /// - Parameters:
    ///   - formats: the reports to render.
    ///   - spoolDirectory: where to set the reports' parts aside in hidden files (`.<report>.spool`), removed by
    ///     ``close()``; `nil` keeps them in memory.
    ///   - scratch: a scratch directory to keep alive as long as the composer (its spool directory).
    /// - Throws: ``EvidenceWriteError`` when a spool file cannot be created.
    package init(formats: [ReportFormat], spoolDirectory: URL?, keeping scratch: ScratchDirectory? = nil) throws {
        self.scratch = scratch
        let wanted = Set(formats)
        self.formats = wanted
        func spool(_ format: ReportFormat) throws -> Spool? {
            guard wanted.contains(format) else { return nil }
            return try Spool(path: spoolDirectory?.appendingPathComponent("." + format.fileName + ".spool").path)
        }
        junit = try spool(.junit)
        markdown = try spool(.markdown)
        markdownRows = wanted.contains(.markdown)
            ? try Spool(path: spoolDirectory?.appendingPathComponent(".summary-rows.spool").path) : nil
        html = try spool(.html)
    }

    /// Counts of the cases and steps so far.
    package var counts: RunCounts {
        RunCounts(cases: VerdictCounts(cases.filter { !$0.unfinished }.map(\.verdict)), steps: steps)
    }

    /// Adds the next case.
    ///
    /// - Throws: ``EvidenceWriteError`` when a spool file cannot be written.
    package func add(_ matrixCase: CaseEvidence) throws {
        guard !matrixCase.records.isEmpty else { return }
        // Each step's wall-clock time is parsed once, for the overview and for JUnit.
        let stepMilliseconds = matrixCase.records.map(StepText.wallMilliseconds)
        let overview = CaseOverview(matrixCase, unfinished: unfinished.contains(matrixCase.id), stepMilliseconds: stepMilliseconds)
        let index = cases.count
        cases.append(overview)
        for verdict in Verdict.allCases { steps[verdict] += overview.counts[verdict] }
        for record in matrixCase.records where record.passedWithNothingObserved { unjudged.add(record) }
        milliseconds = StepText.saturatingSum(milliseconds, overview.wallMilliseconds)
        if let junit {
            var xml = MarkupBuffer(capacity: 1024 + matrixCase.records.count * 160)
            JUnitReport.suite(matrixCase, overview: overview, stepMilliseconds: stepMilliseconds, into: &xml)
            try junit.append(xml)
        }
        try markdownRows?.append(MarkdownSummary.caseRow(overview))
        if let markdown {
            for block in MarkdownSummary.problemBlocks(matrixCase) {
                if markdownBlocks < Self.detailedProblemLimit {
                    try markdown.append(block)
                    markdownBlocks += 1
                } else {
                    markdownOmitted += 1
                }
            }
        }
        if let html {
            let problem = overview.verdict != .pass || overview.unfinished
            // Past the limit, only the sections that can still be shown are worth writing.
            if index < Self.allCaseSectionsLimit || (problem && htmlProblemSections < Self.detailedProblemLimit) {
                let start = html.length
                var buffer = MarkupBuffer(capacity: HTMLReport.flushSize + (HTMLReport.flushSize >> 2))
                try HTMLReport.caseSection(matrixCase, index: index, label: overview.label, into: &buffer) { full in
                    try html.append(full)
                    full.removeAll()
                }
                htmlSections.append((index, start..<html.length, problem))
                if problem { htmlProblemSections += 1 }
            }
        }
    }

    /// Writes one report of the cases added, under `manifest`.
    ///
    /// - Throws: ``EvidenceWriteError`` when a spool cannot be read back or `sink` cannot be written.
    package func write(_ format: ReportFormat, manifest: RunManifest, to sink: ReportSink) throws {
        switch format {
        case .junit:
            guard let junit else { return }
            try sink.write(JUnitReport.head(steps: steps, milliseconds: milliseconds, manifest: manifest))
            try junit.copyAll(to: sink)
            try sink.write(JUnitReport.tail)
        case .markdown:
            guard let markdown else { return }
            try sink.write(MarkdownSummary.head(cases, counts: counts, unjudged: unjudged, manifest: manifest))
            try markdownRows?.copyAll(to: sink)
            if markdownBlocks > 0 {
                try sink.write(MarkdownSummary.problemsHeading)
                try markdown.copyAll(to: sink)
                if markdownOmitted > 0 { try sink.write(MarkdownSummary.omittedNote(markdownOmitted, shown: markdownBlocks)) }
            }
            try sink.write(MarkdownSummary.tail(manifest))
        case .html:
            guard let html else { return }
            let shown: [(index: Int, range: Range<Int64>, problem: Bool)]
            var note: String?
            if cases.count <= Self.allCaseSectionsLimit {
                shown = htmlSections
            } else {
                shown = Array(htmlSections.filter(\.problem).prefix(Self.detailedProblemLimit))
                let problems = cases.filter { $0.verdict != .pass }.count
                note = "This run has \(cases.count) cases, more than \(Self.allCaseSectionsLimit): "
                    + (problems == 0 ? "every case passed, so none is shown in detail. "
                        : "only the first \(shown.count) of the \(problems) cases that did not pass are shown in detail. ")
                    + "Every step of every case is in junit.xml and evidence.jsonl."
            }
            let linked = Set(shown.map(\.index))
            try sink.write(HTMLReport.head(cases, counts: counts, manifest: manifest, detailed: { linked.contains($0) }, note: note))
            for section in shown { try html.copy(section.range, to: sink) }
            try sink.write(HTMLReport.tail(manifest))
        case .json:
            let data = RunReport(cases: cases, manifest: manifest).encoded()
            try data.withUnsafeBytes { try sink.write(bytes: $0) }
        }
    }

    /// Removes the spool files.
    package func close() {
        junit?.remove()
        markdown?.remove()
        markdownRows?.remove()
        html?.remove()
    }
}

/// The steps of a run that passed with none of their expectation observed: a guided run's `balance`, say, which
/// the environment cannot see. Their verdict is `pass`, but nothing was judged; the reports say so.
package struct UnjudgedPasses: Sendable {
    /// How many steps are listed by name; the rest are counted.
    static let listed = 10
    /// How many there are.
    package private(set) var count = 0
    /// The first ``listed`` of them, as case id and step number.
    package private(set) var first: [(case: String, step: Int)] = []

    mutating func add(_ record: EvidenceRecord) {
        count += 1
        if first.count < Self.listed { first.append((record.case, record.step)) }
    }
}
