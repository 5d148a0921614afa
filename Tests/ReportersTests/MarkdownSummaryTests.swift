import Foundation
import Testing
@testable import FileIO
@testable import MatrixModel
@testable import Reporters
@testable import TestSupport

@Suite("Markdown summary")
struct MarkdownSummaryTests {
    private var summary: String {
        do {
            return try MarkdownSummary.render(records: SampleRun.records, manifest: SampleRun.manifest)
        } catch {
            Issue.record(error, "the summary did not render")
            return ""
        }
    }

    /// The number of cells in a table row: pipes not escaped by a backslash, minus one.
    private func cells(_ row: Substring) -> Int {
        var count = 0
        var escaped = false
        for character in row {
            if character == "|" && !escaped { count += 1 }
            escaped = character == "\\" && !escaped
        }
        return count - 1
    }

    @Test("The cases table has one row per case with a text verdict")
    func casesTable() throws {
        let lines = summary.split(separator: "\n")
        let header = try #require(lines.firstIndex(of: "| Case | Kind | Account | Verdict | Steps | First problem |"))
        let rows = lines[(header + 2)...].prefix { $0.hasPrefix("|") }
        #expect(rows.count == 4)
        #expect(rows.allSatisfy { cells($0) == 6 })
        #expect(rows.map { $0.contains("**PASS**") || $0.contains("**FAIL**") || $0.contains("**ERROR**") || $0.contains("**SKIPPED**") }
            == [true, true, true, true])
        #expect(rows[rows.startIndex + 1].hasPrefix("| `refund/pro` | refund | owner | **FAIL** | 1 fail, 1 blocked, 1 pass |"))
    }

    @Test("Counts per verdict are given for cases and steps")
    func counts() {
        #expect(summary.contains("| Cases | 1 | 1 | 1 | 1 | 0 | 4 |"))
        #expect(summary.contains("| Steps | 7 | 1 | 1 | 1 | 2 | 12 |"))
    }

    @Test("Every failure and error is listed with expected, observed and reason")
    func problems() {
        #expect(summary.contains("### FAIL: `refund/pro` step 1 `refund com.example.myapp.pro`"))
        #expect(summary.contains(#"| access | `[]` | `["pro"]` | **differs** |"#))
        #expect(summary.contains("### ERROR: `renewal/vip` step 2 `advanceTime (by P1M)`"))
        #expect(summary.contains("| subscriptionStatus | `VIP: expired` | `not observed` |  |"))
        #expect(summary.contains(#"Reason: the driver said \<timeout\> \& closed \| code \u001B\[31m after 30 s"#))
    }

    @Test("passing steps none of whose expectation was observed are named under Not judged; partly observed ones are not")
    func unjudgedPasses() throws {
        // A guided run's steps: twelve expect only a balance, which the tester cannot observe; one also expects
        // access, which was observed.
        var records: [EvidenceRecord] = []
        for index in 0..<13 {
            var record = SampleRun.records[0]
            record.case = "balance/\(index)"
            record.step = 1
            record.seq = index + 1
            record.expected = index == 12 ? Expectation(access: ["pro"], balance: ["coins": 5]) : Expectation(balance: ["coins": 5])
            var observed = Observation(access: ["pro"])
            observed.notObserved = ["balance"]
            record.observed = observed
            record.verdict = .pass
            record.reason = nil
            records.append(record)
        }
        let text = try MarkdownSummary.render(records: records, manifest: SampleRun.manifest)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("Not judged: ") })
        #expect(line.contains("12 passing steps have none of their expectation observed"))
        #expect(line.contains("`balance/0` #1, `balance/1` #1") && line.contains("`balance/9` #1, and 2 more"), "\(line)")
        #expect(!line.contains("balance/12"))
        #expect(!summary.contains("Not judged"), "the sample run judges every passing step")
    }

    @Test("The summary uses no emoji and no raw control characters")
    func plainText() {
        #expect(!summary.unicodeScalars.contains { $0.properties.isEmojiPresentation })
        #expect(!summary.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    }

    @Test("A pipe or a line break in a case id cannot break the table")
    func tableSafety() throws {
        var records = Array(SampleRun.records[0...2])
        for index in records.indices { records[index].case = "odd|case\nid`x`" }
        let text = try MarkdownSummary.render(records: records, manifest: SampleRun.manifest)
        let row = try #require(text.split(separator: "\n").first { $0.contains("odd") })
        #expect(cells(row) == 6)
        #expect(row.hasPrefix(#"| `` odd\|case id`x` `` |"#))
    }

    @Test("The job summary is appended to the file GITHUB_STEP_SUMMARY names")
    func stepSummary() throws {
        let root = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("step_summary.md")
        try Data("earlier step\n".utf8).write(to: file)
        let environment = ["GITHUB_STEP_SUMMARY": file.path]
        #expect(try GitHubStepSummary.append("# one", environment: environment) == file)
        try GitHubStepSummary.append("# two\n", environment: environment)
        #expect(try String(contentsOf: file, encoding: .utf8) == "earlier step\n# one\n# two\n")
    }

    @Test("Without GITHUB_STEP_SUMMARY nothing is written", arguments: [[:], ["GITHUB_STEP_SUMMARY": ""]])
    func noStepSummary(environment: [String: String]) throws {
        #expect(try GitHubStepSummary.append("# one", environment: environment) == nil)
    }

    @Test("An unwritable job summary file gives a cannotWrite error")
    func unwritableStepSummary() throws {
        let error = try #require(throws: EvidenceWriteError.self) {
            try GitHubStepSummary.append("# one", environment: ["GITHUB_STEP_SUMMARY": "/nonexistent/dir/summary.md"])
        }
        #expect(error.code == .cannotWrite)
    }
}

/// An interrupted run's last case started and did not end: its steps so far are not its verdict.
@Suite("Unfinished cases in reports")
struct UnfinishedCaseTests {
    @Test("a case the run stopped during is INTERRUPTED in every report and left out of the case counts, not its steps")
    func unfinishedCase() throws {
        // The first two steps of the family-sharing case, as a run stopped during it wrote them.
        let records = Array(SampleRun.records.prefix { $0.case != "family-sharing/pro" }) + SampleRun.records.filter { $0.case == "family-sharing/pro" }.prefix(1)
        var manifest = SampleRun.manifest
        manifest.status = .interrupted
        manifest.unfinishedCases = ["family-sharing/pro"]
        let markdown = String(decoding: try Reports.render(.markdown, records: records, manifest: manifest), as: UTF8.self)
        #expect(markdown.contains("| `family-sharing/pro` | family-sharing | member | **INTERRUPTED** | 1 pass |"), "\(markdown)")
        let html = String(decoding: try Reports.render(.html, records: records, manifest: manifest), as: UTF8.self)
        #expect(html.contains(#"<span class="badge v-interrupted">INTERRUPTED</span> <code>family-sharing/pro</code>"#))
        let report = try JSONDecoder().decode(RunReport.self, from: Reports.render(.json, records: records, manifest: manifest))
        #expect(report.cases.map(\.unfinished) == [nil, nil, nil, true])

        let composer = try ReportComposer(formats: [.markdown], spoolDirectory: nil)
        composer.unfinished = ["family-sharing/pro"]
        for matrixCase in CaseEvidence.group(records) { try composer.add(matrixCase) }
        #expect(composer.counts.cases.total == 3, "the unfinished case is not counted as a case")
        #expect(composer.counts.steps.total == records.count, "its steps are")
        composer.close()

        // Without the manifest's word, the same records are an ordinary passing case.
        manifest.unfinishedCases = nil
        let plain = String(decoding: try Reports.render(.markdown, records: records, manifest: manifest), as: UTF8.self)
        #expect(plain.contains("| `family-sharing/pro` | family-sharing | member | **PASS** | 1 pass |"))
    }
}
