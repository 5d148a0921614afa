import Foundation
import Testing
@testable import Reporters
@testable import TestSupport

/// Evidence files may hold any number a hand or another tool wrote; reports render them without trapping.
@Suite("Extreme values in evidence")
struct ExtremeValuesTests {
    @Test("store times at Int64's ends and wall times years apart render in every format", arguments: ReportFormat.allCases)
    func extremeTimes(format: ReportFormat) throws {
        var records = SampleRun.records
        records[0].storeTime = .min
        records[1].storeTime = .max
        records[2].wallStart = "-99999-01-01T00:00:00Z"
        records[2].wallEnd = "99999-12-31T00:00:00Z"
        records[3].wallStart = "0001-01-01T00:00:00Z"
        records[3].wallEnd = "99999-12-31T00:00:00Z"
        let data = try Reports.render(format, records: records + records.map { var copy = $0; copy.case += "-again"; return copy },
                                  manifest: SampleRun.manifest)
        #expect(!data.isEmpty)
    }

    @Test("sums of wall times saturate instead of overflowing")
    func saturatingSum() {
        #expect(StepText.saturatingSum(.max, 1) == .max)
        #expect(StepText.saturatingSum(.min, -1) == .min)
        #expect(StepText.saturatingSum(2, 3) == 5)
        #expect(StepText.elapsed(from: .min, to: .max) == StepText.elapsed(.max))
        #expect(StepText.elapsed(from: 0, to: 90_000) == "+1m 30s")
    }
}
