import Foundation
@testable import MatrixComparison
@testable import MatrixModel
@testable import Reporters
@testable import TestSupport
import Testing

@Suite("Comparison reports")
struct ComparisonReportTests {
    static let comparison = Comparator.compare(CompareFixture.everyClassification)

    @Test("Text, Markdown and JSON match their golden files", arguments: [
        (CompareFormat.text, "compare.txt"), (.markdown, "compare.md"), (.json, "compare.json"),
    ])
    func golden(format: CompareFormat, file: String) throws {
        try GoldenFile.check(ComparisonReport.render(Self.comparison, as: format), named: file)
    }

    @Test("The JSON is versioned and decodes back to the same comparison")
    func jsonRoundTrip() throws {
        let data = ComparisonReport.render(Self.comparison, as: .json)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["compareVersion"] as? Int == 1)
        #expect(object["matrixVersionsDiffer"] as? Bool == true)
        #expect(try JSONDecoder().decode(Comparison.self, from: data) == Self.comparison)
    }

    @Test("Text puts every warning first, one row per difference, and a dash for a run without the step")
    func textShape() throws {
        let runs = [
            CompareFixture.run("local", [CompareFixture.record("a/b", 0, .pass, access: []),
                                         CompareFixture.record("a/b", 1, .pass, access: [])]),
            CompareFixture.run("exec", [CompareFixture.record("a/b", 0, .fail, access: ["pro"])]),
            CompareFixture.run("sandbox", [CompareFixture.record("a/b", 0, .pass, access: []),
                                           CompareFixture.record("a/b", 1, .fail, access: ["pro"])], digest: CompareFixture.otherDigest),
        ]
        let text = String(decoding: ComparisonReport.render(Comparator.compare(runs), as: .text), as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let warnings = lines.filter { $0.hasPrefix("warning: ") }
        #expect(warnings.count == 2)
        #expect(warnings.first?.contains("different matrix versions") == true)
        let rows = lines.filter { $0.hasPrefix("a/b ") }
        try #require(rows.count == 2)
        #expect(rows[0].contains("pass []") && rows[0].contains(#"fail ["pro"]"#) && rows[0].hasSuffix("app logic"))
        #expect(rows[1].split(separator: " ", omittingEmptySubsequences: true).contains("—"))
        #expect(rows[1].hasSuffix("inconclusive"), "the exec run lacks the step: only local passes it")
        #expect(lines.last(where: { !$0.isEmpty }) == "2 steps compared in 1 case · 2 differences: 1 app logic, 1 inconclusive "
            + "· 2 not explained by a known environment divergence · 1 not in every run")
    }

    @Test("Markdown escapes table characters in reasons, so every row keeps its columns")
    func markdownEscaping() throws {
        let runs = [
            CompareFixture.run("local", [CompareFixture.record("a|b", 0, .pass, access: [])]),
            CompareFixture.run("sandbox", [CompareFixture.record("a|b", 0, .skipped, reason: "not here | <b>bold</b> `x`")]),
        ]
        let markdown = String(decoding: ComparisonReport.render(Comparator.compare(runs), as: .markdown), as: UTF8.self)
        let row = try #require(markdown.split(separator: "\n").first { $0.hasPrefix("| `a") })
        let unescapedPipes = row.indices.filter { row[$0] == "|" && (($0 == row.startIndex) || row[row.index(before: $0)] != "\\") }
        #expect(unescapedPipes.count == 6, "row: \(row)")
        #expect(row.contains(#"\<b\>bold\</b\>"#))
        #expect(markdown.hasPrefix("# StoreKit Matrix: compare — 1 difference, 1 needs attention\n"))
    }

    @Test("Known divergences are cited once each with their Apple page")
    func citations() {
        let text = String(decoding: ComparisonReport.render(Self.comparison, as: .text), as: UTF8.self)
        for divergence in [KnownDivergence.sandboxRenewalLimit, .testFlightRenewalLimit, .testFlightBillingRetry] {
            #expect(text.components(separatedBy: "  \(divergence.rawValue) (").count == 2)
            #expect(text.contains("    " + (divergence.source ?? "none") + "\n"))
        }
        #expect(!text.contains(KnownDivergence.testFlightDailyRenewals.rawValue))
    }
}
