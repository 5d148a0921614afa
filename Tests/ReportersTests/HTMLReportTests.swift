import Foundation
import Testing
@testable import MatrixModel
@testable import Reporters
@testable import TestSupport

@Suite("HTML report")
struct HTMLReportTests {
    private func render(_ records: [EvidenceRecord] = SampleRun.records) -> String {
        do {
            return try HTMLReport.render(records: records, manifest: SampleRun.manifest)
        } catch {
            Issue.record(error, "the report did not render")
            return ""
        }
    }

    /// Every `<svg …>…</svg>` of the page, parsed.
    private func timelines(_ html: String) throws -> [ParsedXML] {
        var result: [ParsedXML] = []
        var rest = html[...]
        while let start = rest.range(of: "<svg "), let end = rest.range(of: "</svg>", range: start.upperBound..<rest.endIndex) {
            let fragment = String(rest[start.lowerBound..<end.upperBound])
            result.append(try #require(ParsedXML.parse(Data(fragment.utf8)), "an SVG timeline is not well-formed"))
            rest = rest[end.upperBound...]
        }
        return result
    }

    @Test("A guided step's fields the tester cannot observe read not observed, beside the expectation, on a passing row")
    func unobservedFields() throws {
        var record = SampleRun.records[0]
        record.expected = Expectation(access: ["pro"], subscriptionStatus: ["vip": "subscribed"], notifications: ["SUBSCRIBED/INITIAL_BUY"])
        var observed = Observation(access: ["pro"])
        observed.notObserved = ["subscriptionStatus", "notifications", "entitlements"]
        record.observed = observed
        record.verdict = .pass
        record.reason = nil
        let rows = StepText.comparisons(record)
        #expect(rows.map(\.observed) == [#"["pro"]"#, "not observed", "not observed"])
        #expect(rows.map(\.unobserved) == [false, true, true])
        #expect(rows.allSatisfy { !$0.differs })
        let html = render([record])
        #expect(html.contains(#"<span class="field">subscriptionStatus</span> <span class="muted">not observed</span>"#))
        #expect(html.contains(#"<span class="field">notifications</span> <span class="muted">not observed</span>"#))
        #expect(!html.contains("vip: none") && !html.contains("notifications</span> []"))
    }

    @Test("The page is self-contained: no network, no external assets")
    func selfContained() {
        let html = render()
        for reference in ["http:", "https:", "src=", "<link", "@import", "url("] {
            #expect(!html.contains(reference), "found \(reference)")
        }
        #expect(!html.contains("href=\"//"))
        #expect(html.contains("<style>") && html.contains("<script>"))
        #expect(html.hasPrefix("<!DOCTYPE html>"))
    }

    @Test("Filters exist for every case verdict and kind, hidden until the script shows them")
    func filters() throws {
        let html = render()
        #expect(html.contains(#"<section id="filters" class="filters" hidden>"#))
        for verdict in ["pass", "fail", "error", "skipped"] {
            #expect(html.contains(#"data-filter="verdict" value="\#(verdict)""#))
        }
        #expect(!html.contains(#"data-filter="verdict" value="blocked""#))
        for kind in ["fresh-purchase", "refund", "renewal", "family-sharing"] {
            #expect(html.contains(#"data-filter="kind" value="\#(kind)""#))
            #expect(html.contains(#"data-kind="\#(kind)""#))
        }
    }

    @Test("Each case has a timeline with one labelled marker per step, failing steps in red")
    func markers() throws {
        let svgs = try timelines(render())
        #expect(svgs.count == 4)
        let refund = svgs[1]
        let steps = refund.descendants("g").filter { $0.attributes["class"]?.hasPrefix("step ") == true }
        #expect(steps.map { $0.attributes["class"] } == ["step v-pass", "step v-fail", "step v-blocked"])
        #expect(steps.map { $0.children("text").first?.text } == ["launch", "refund", "relaunch"])
        #expect(steps[1].children("text").first?.attributes["class"] == "action failing")
        #expect(refund.descendants("rect").filter { $0.attributes["class"] == "failing-column" }.count == 1)
        #expect(svgs[0].descendants("rect").filter { $0.attributes["class"] == "failing-column" }.isEmpty)
    }

    @Test("Markers sit on a store-time axis: x grows with store time, and more time means more distance")
    func storeTimeAxis() throws {
        let renewal = try timelines(render())[2]
        let steps = renewal.descendants("g").filter { $0.attributes["class"]?.hasPrefix("step ") == true }
        let xs = steps.compactMap { $0.attributes["data-x"].flatMap(Int.init) }
        #expect(xs.count == 4)
        #expect(xs == xs.sorted() && Set(xs).count == 4)
        #expect(steps[1].attributes["data-store-time"] == String(SampleRun.storeStart + 59 * SampleRun.day))
        // 59 days between steps 0 and 1; none between steps 1, 2 and 3.
        #expect(xs[1] - xs[0] > 4 * (xs[2] - xs[1]))
        #expect(xs[2] - xs[1] == Timeline.minimumGap)
        #expect(xs[3] - xs[2] == Timeline.minimumGap)
        let ticks = renewal.descendants("text").filter { $0.attributes["class"] == "tick-label" }.map(\.text)
        #expect(ticks == ["+0", "+59d"])
    }

    @Test("Expected and observed access are bands per step, coloured and labelled when tiers are granted")
    func bands() throws {
        let refund = try timelines(render())[1]
        let bands = refund.descendants("g").filter { $0.attributes["class"]?.hasPrefix("band") == true }
        let expected = bands.filter { $0.attributes["data-row"] == "expected" }
        let observed = bands.filter { $0.attributes["data-row"] == "observed" }
        #expect(expected.map { $0.attributes["class"] } == ["band tiers", "band empty", "band empty"])
        #expect(observed.map { $0.attributes["class"] } == ["band tiers", "band tiers mismatch", "band unobserved"])
        #expect(expected[0].children("text").first?.text == "pro")
        #expect(expected[0].children("rect").first?.attributes["style"] == "fill:\(Timeline.colour(for: ["pro"]))")
        #expect(expected[1].children("rect").first?.attributes["style"] == nil)
        // Segments run from one step to the next.
        let rects = expected.compactMap { $0.children("rect").first }
        let x = rects.compactMap { $0.attributes["x"].flatMap(Int.init) }
        let widths = rects.compactMap { $0.attributes["width"].flatMap(Int.init) }
        #expect(x[0] + widths[0] == x[1])
        #expect(x[1] + widths[1] == x[2])
    }

    @Test("Every step appears in its case's table with expected and observed values")
    func stepTables() {
        let html = render()
        #expect(html.components(separatedBy: "<tr class=\"v-").count - 1 == SampleRun.records.count)
        #expect(html.contains(#"<div class="differs"><span class="field">access</span> [&quot;pro&quot;]</div>"#)
            || html.contains(#"<div class="differs"><span class="field">access</span> ["pro"]</div>"#))
        #expect(html.contains("blocked: step 1 (refund) failed"))
        #expect(html.contains("transactions 2000000004, 2000000005"))
    }

    @Test("All text is escaped: a hostile case id or reason cannot inject markup")
    func escaping() throws {
        var records = Array(SampleRun.records[3...5])
        for index in records.indices {
            records[index].case = "<script>alert(1)</script>"
            records[index].kind = "k\"><img onerror=x>"
        }
        records[1].reason = "</svg><b>bold</b>\u{1B}"
        let html = render(records)
        #expect(!html.contains("<script>alert"))
        #expect(!html.contains("<img"))
        #expect(!html.contains("<b>bold"))
        #expect(!html.unicodeScalars.contains { $0 == "\u{1B}" })
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(try timelines(html).count == 1)
    }

    @Test("A case without store time still gets a timeline, in step order")
    func noStoreTime() throws {
        var records = Array(SampleRun.records[0...2])
        for index in records.indices {
            records[index].storeTime = nil
            records[index].observed?.storeTime = nil
        }
        let html = render(records)
        #expect(html.contains("No store time was observed"))
        let steps = try timelines(html)[0].descendants("g").filter { $0.attributes["class"]?.hasPrefix("step ") == true }
        let xs = steps.compactMap { $0.attributes["data-x"].flatMap(Int.init) }
        #expect(xs == [Timeline.left, Timeline.left + Timeline.minimumGap, Timeline.left + 2 * Timeline.minimumGap])
    }

    @Test("Store time reported going backwards keeps the steps in order on the axis")
    func backwardsStoreTime() throws {
        var records = Array(SampleRun.records[6...7])
        records[0].storeTime = SampleRun.storeStart + SampleRun.day
        records[0].observed?.storeTime = SampleRun.storeStart + SampleRun.day
        records[1].storeTime = SampleRun.storeStart
        records[1].observed?.storeTime = SampleRun.storeStart
        let timeline = Timeline(matrixCase: try #require(CaseEvidence.group(records).first), index: 0)
        #expect(timeline.points.map(\.x) == [Timeline.left + Timeline.timeWidth(2), Timeline.left + Timeline.timeWidth(2) + Timeline.minimumGap])
    }
}

/// The page as QA reads it: what did not pass first, the accounts out of the way, skips explained, long text
/// wrapped. Checked on the markup and the stylesheet, so CI catches a layout regression without a browser.
@Suite("HTML report layout")
struct HTMLReportLayoutTests {
    let html = (try? HTMLReport.render(records: SampleRun.records, manifest: SampleRun.manifest)) ?? ""

    func position(_ text: String) throws -> String.Index {
        try #require(html.range(of: text), "\(text) is missing").lowerBound
    }

    @Test("counts, then the cases that did not pass, then the run's details, then the index of cases")
    func order() throws {
        #expect(try position(#"<section class="counts">"#) < position(#"<section class="failures">"#))
        #expect(try position(#"<section class="failures">"#) < position(#"<section class="run">"#))
        #expect(try position(#"<section class="run">"#) < position(#"<section class="index">"#))
        let failures = String(html[try position(#"<section class="failures">"#)..<position(#"<section class="run">"#)])
        #expect(failures.contains("<h2>Did not pass (2)</h2>"))
        #expect(failures.contains(##"<a href="#case-1"><code>refund/pro</code></a> — step 1 (refund): access: expected [], observed"##))
    }

    @Test("the account list is collapsed, with its count")
    func accountsCollapsed() throws {
        let accounts = try #require(html.range(of: #"<details class="accounts"><summary>Accounts ("#))
        #expect(!html[accounts.upperBound...].hasPrefix("0)"))
        let run = html[try position(#"<section class="run">"#)..<accounts.lowerBound]
        #expect(!run.contains("<dt>fresh</dt>") && !run.contains("Account fresh"), "no account is listed outside the collapsed list")
    }

    @Test("a case that was only skipped shows why in the table of cases")
    func skipReason() {
        #expect(html.contains(#"<td class="problem muted">skipped step 1 (purchaseOutsideApp): Family Sharing purchases cannot be made in the sandbox environment</td>"#))
    }

    @Test("reasons, expected and observed values and failure lines wrap long names instead of overflowing")
    func wrapping() {
        #expect(HTMLAssets.css.contains("td.wrap, td.problem { overflow-wrap: anywhere; }"))
        #expect(html.contains(#"<td class="wrap"><div><span class="field">access</span>"#), "expected, observed and reason cells wrap")
        #expect(HTMLAssets.css.contains("white-space: nowrap; }"), "badges never break inside")
        #expect(HTMLAssets.css.contains(".failures li { margin: 2px 0; overflow-wrap: anywhere; }"))
        #expect(HTMLAssets.css.contains("table { max-width: 100%; }"))
    }
}
