import Foundation
import Testing
@testable import MatrixModel
@testable import Reporters
@testable import TestSupport

/// A tier name comes from a matrix or, in a server run, from a backend's access answer: one holding a quote or a
/// comma must show as one name in every message and report.
@Suite("Tier names in messages and reports")
struct TierNameEscapingTests {
    static let hostile = #"pro", "max"#

    /// The sample run's failing refund step, with the hostile tier observed.
    static var records: [EvidenceRecord] {
        SampleRun.records.map { record in
            guard record.verdict == .fail, var observed = record.observed else { return record }
            var copy = record
            observed.access = [hostile]
            copy.observed = observed
            copy.reason = Judge.differences(record.action, observed, in: ExampleMatrix.matrix(cases: []), clock: nil).map(\.sentence).joined(separator: "; ")
            return copy
        }
    }

    @Test("Judge renders a tier with a quote as one JSON string, so a message shows one tier, not two")
    func judge() {
        #expect(Judge.render([Self.hostile]) == #"["pro\", \"max"]"#)
        #expect(Judge.render(["a,b", "c\\d", "e\u{1}"]) == #"["a,b", "c\\d", "e\u0001"]"#)
        #expect(Judge.render(["pro", "vip"]) == #"["pro", "vip"]"#)
    }

    @Test("junit.xml, summary.md and report.html show the hostile tier escaped as Judge renders it")
    func reports() throws {
        let records = Self.records
        let junit = try JUnitReport.render(records: records, manifest: SampleRun.manifest)
        let summary = try MarkdownSummary.render(records: records, manifest: SampleRun.manifest)
        for (name, text) in [("junit.xml", junit), ("summary.md", summary)] {
            #expect(text.contains(#"pro\", \"max"#), "\(name)")
            #expect(!text.contains(#"["pro", "max"]"#), "\(name)")
        }
    }

    @Test("the timeline labels a tier with a comma or a quote as Judge renders it, and a plain tier as it is")
    func timelineLabels() {
        #expect(Timeline.isPlain("pro"))
        #expect(!Timeline.isPlain("a, b") && !Timeline.isPlain(Self.hostile) && !Timeline.isPlain(" pro"))
    }
}
