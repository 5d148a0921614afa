import Testing
@testable import MatrixCLI
@testable import MatrixEngine
@testable import TestSupport

@Suite("Run summary line")
struct SummaryLineTests {
    @Test("the summary line says how many passing steps had no expectation, and how many had none of theirs observed")
    func passesWithoutExpectation() {
        var summary = RunSummary()
        summary.cases = [.pass: 2]
        summary.steps = [.pass: 7, .skipped: 1]
        summary.passesWithoutExpectation = 3
        #expect(ProgressPrinter.summaryLine(summary, directory: "r/x")
                == "2 cases: 2 pass · 8 steps: 7 pass, 1 skipped (3 pass without an expectation) · 7 of 8 steps performed (87 %) · evidence: r/x")
        summary.passesWithNothingObserved = 2
        #expect(ProgressPrinter.summaryLine(summary, directory: "r/x")
                == "2 cases: 2 pass · 8 steps: 7 pass, 1 skipped (3 pass without an expectation, 2 pass with none of their expectation observed) · 7 of 8 steps performed (87 %) · evidence: r/x")
        summary.passesWithoutExpectation = 0
        summary.passesWithNothingObserved = 0
        #expect(ProgressPrinter.summaryLine(summary, directory: "r/x") == "2 cases: 2 pass · 8 steps: 7 pass, 1 skipped · 7 of 8 steps performed (87 %) · evidence: r/x")
    }

    @Test("an interrupted run's line says how many of its cases ended; a complete run's does not repeat the total")
    func interruptedOfTotal() {
        var summary = RunSummary()
        summary.cases = [.pass: 1]
        summary.steps = [.pass: 3]
        #expect(ProgressPrinter.summaryLine(summary, of: 1, directory: "r/x") == "1 case: 1 pass · 3 steps: 3 pass · evidence: r/x")
        summary.interrupted = true
        #expect(ProgressPrinter.summaryLine(summary, of: 2000, shard: "2/3", directory: "r/x")
                == "1 of 2000 cases: 1 pass · 3 steps: 3 pass · interrupted · shard 2/3 · evidence: r/x")
    }

    @Test("a --verbose step line gives the verdict once, then the reason; control characters stay visible")
    func stepLine() {
        let blocked = CompareFixture.record("refund/pro", 3, .blocked, action: .relaunch, reason: "blocked: step 2 (refund) failed")
        #expect(ProgressPrinter.stepLine(blocked) == "    refund/pro #3 relaunch: blocked — step 2 (refund) failed")
        let failed = CompareFixture.record("refund/pro", 2, .fail, action: .refund, reason: "access: expected [], observed [\"pro\"]\u{1B}")
        #expect(ProgressPrinter.stepLine(failed) == #"    refund/pro #2 refund: fail — access: expected [], observed ["pro"]\u{1B}"#)
        #expect(ProgressPrinter.stepLine(CompareFixture.record("c", 0, .pass)) == "    c #0 observe: pass")
    }
}
