import MatrixModel

/// Renders a run as one self-contained HTML page, `report.html`.
///
/// The page has no external references (no network, no fonts, no images): CSS, SVG and script are inline.
/// It shows first the counts per verdict and the cases that did not pass, then the run's metadata (the accounts
/// collapsed), a table of cases (a skipped case with its reason), and per case a ``Timeline`` picture and a
/// table of steps with expected and observed values. Long names and reasons wrap at any width. Everything is readable with JavaScript off; the filters by
/// verdict and by case kind need it and stay hidden without it. All text is escaped.
public enum HTMLReport {
    /// `report.html`.
    public static let fileName = "report.html"

    /// The HTML document, UTF-8 text ending with a newline.
    /// - Throws: as ``Reports/render(_:records:manifest:)``.
    public static func render(records: [EvidenceRecord], manifest: RunManifest) throws -> String {
        String(decoding: try Reports.render(.html, records: records, manifest: manifest), as: UTF8.self)
    }

    /// Everything before the cases' sections: metadata, counts, filters and the index of cases.
    ///
    /// - Parameters:
    ///   - detailed: whether the case at an index has a section to link to.
    ///   - note: a paragraph after the index, saying which cases have no section.
    static func head(_ cases: [CaseOverview], counts: RunCounts, manifest: RunManifest, detailed: (Int) -> Bool,
                     note: String?) -> String {
        let overall = cases.isEmpty ? "NO STEPS" : StepText.label(Verdict.summarise(cases.map(\.verdict)))
        let title = "StoreKit Matrix: \(StepText.runName(manifest)) — \(overall)"
        var html = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(Markup.text(title))</title>
        <style>
        \(HTMLAssets.css)</style>
        </head>
        <body>
        <header>
        <h1>StoreKit Matrix: \(Markup.text(StepText.runName(manifest))) \(verdictBadge(overall))</h1>

        """
        html += "</header>\n<main>\n"
        html += countsTable(counts)
        html += failures(cases, detailed: detailed)
        html += metadata(manifest)
        html += filters(cases)
        html += caseIndex(cases, detailed: detailed)
        if let note { html += "<p class=\"muted\">\(Markup.text(note))</p>\n" }
        return html
    }

    /// Everything after the cases' sections.
    static func tail(_ manifest: RunManifest) -> String {
        "</main>\n<footer>Rendered by matrix \(Markup.text(manifest.toolVersion)) from the evidence of run "
            + "<code>\(Markup.text(manifest.runId))</code>.</footer>\n"
            + "<script>\n\(HTMLAssets.script)</script>\n</body>\n</html>\n"
    }

    private static func verdictBadge(_ label: String) -> String {
        let name = label.lowercased()
        let slug = name.contains(" ") ? name.replacingOccurrences(of: " ", with: "-") : name
        return "<span class=\"badge v-\(Markup.attribute(slug))\">\(Markup.text(label))</span>"
    }

    private static func metadata(_ manifest: RunManifest) -> String {
        var rows: [(String, String)] = [
            ("Run", manifest.runId), ("Status", manifest.status.rawValue), ("Environment", StepText.environment(manifest.environment)),
            ("Build", manifest.build), ("Device", manifest.device), ("OS", manifest.os),
        ]
        if let selection = StepText.selection(manifest) { rows.append(("Selection", selection)) }
        if let shard = StepText.shard(manifest) { rows.append(("Shard", shard)) }
        if let clock = manifest.clock { rows.append(("Clock", StepText.clock(clock, environment: manifest.environment))) }
        if let fault = manifest.appFault { rows.append(("App fault", StepText.appFault(fault))) }
        if let guidance = manifest.guidance { rows.append(("Observations", guidance)) }
        if let warnings = manifest.warnings, !warnings.isEmpty { rows.append(("Matrix warnings", warnings.joined(separator: "\n"))) }
        rows += [
            ("Matrix", "\(manifest.matrix.path) (\(manifest.matrix.name))"), ("Matrix SHA-256", manifest.matrix.sha256),
            ("Started", manifest.startedAt), ("Ended", manifest.endedAt ?? "—"), ("Tool", "matrix \(manifest.toolVersion)"),
        ]
        func list(_ rows: [(String, String)]) -> String {
            "<dl class=\"meta\">\n" + rows.map { "<dt>\(Markup.text($0.0))</dt><dd>\(Markup.text($0.1))</dd>\n" }.joined() + "</dl>\n"
        }
        var html = "<section class=\"run\"><h2>Run</h2>\n" + list(rows)
        if !manifest.accounts.isEmpty {
            // Collapsed: a real catalog's run lists dozens of accounts, which would push everything else down.
            let accounts = manifest.accounts.map { account in
                (account.alias, account.state + (account.hash.map { " (hash \($0.prefix(12))…)" } ?? ""))
            }
            html += "<details class=\"accounts\"><summary>Accounts (\(accounts.count))</summary>\n" + list(accounts) + "</details>\n"
        }
        return html + "</section>\n"
    }

    /// The cases that did not pass, each with its first problem, before anything else a reader needs.
    private static func failures(_ cases: [CaseOverview], detailed: (Int) -> Bool) -> String {
        let failing = cases.enumerated().filter { $0.element.firstProblem != nil || $0.element.unfinished }
        guard !failing.isEmpty else { return "" }
        var html = "<section class=\"failures\"><h2>Did not pass (\(failing.count))</h2>\n<ul>\n"
        for (index, matrixCase) in failing.prefix(failuresListed) {
            let name = "<code>\(Markup.text(matrixCase.id))</code>"
            let problem = matrixCase.firstProblem.map { $0.text(orElse: StepText.label) } ?? ""
            html += "<li>\(verdictBadge(matrixCase.label)) " + (detailed(index) ? "<a href=\"#case-\(index)\">\(name)</a>" : name)
                + (problem.isEmpty ? "" : " — \(Markup.text(problem))") + "</li>\n"
        }
        if failing.count > failuresListed {
            html += "<li class=\"muted\">and \(failing.count - failuresListed) more in the table of cases below</li>\n"
        }
        return html + "</ul>\n</section>\n"
    }

    /// How many cases that did not pass the top of the page lists; the table of cases has them all.
    static let failuresListed = 20

    private static func countsTable(_ counts: RunCounts) -> String {
        var html = "<section class=\"counts\"><h2>Counts</h2>\n<table>\n<thead><tr><th></th>"
        html += Verdict.allCases.map { "<th class=\"v-\($0.rawValue)\">\($0.rawValue)</th>" }.joined() + "<th>total</th></tr></thead>\n<tbody>\n"
        for (name, row) in [("Cases", counts.cases), ("Steps", counts.steps)] {
            html += "<tr><th>\(name)</th>" + Verdict.allCases.map { "<td>\(row[$0])</td>" }.joined() + "<td>\(row.total)</td></tr>\n"
        }
        html += "</tbody>\n</table>\n"
        html += "<p class=\"exercised\"><b>Exercised:</b> \(Markup.text(StepText.exercised(counts.steps)))</p>\n"
        return html + "</section>\n"
    }

    private static func filters(_ cases: [CaseOverview]) -> String {
        let verdicts = VerdictCounts(cases.map(\.verdict))
        var kinds: [String: Int] = [:]
        for matrixCase in cases { kinds[matrixCase.kind, default: 0] += 1 }
        var html = "<section id=\"filters\" class=\"filters\" hidden>\n<fieldset><legend>Case verdict</legend>\n"
        for verdict in Verdict.allCases where verdicts[verdict] > 0 {
            html += "<label><input type=\"checkbox\" data-filter=\"verdict\" value=\"\(verdict.rawValue)\" checked> "
                + "\(StepText.label(verdict)) (\(verdicts[verdict]))</label>\n"
        }
        html += "</fieldset>\n<fieldset><legend>Case kind</legend>\n"
        for (kind, count) in kinds.sorted(by: { $0.key < $1.key }) {
            html += "<label><input type=\"checkbox\" data-filter=\"kind\" value=\"\(Markup.attribute(kind))\" checked> "
                + "\(Markup.text(kind)) (\(count))</label>\n"
        }
        return html + "</fieldset>\n<p id=\"shown\" aria-live=\"polite\"></p>\n</section>\n"
    }

    private static func caseIndex(_ cases: [CaseOverview], detailed: (Int) -> Bool) -> String {
        guard !cases.isEmpty else { return "<p>No steps were recorded.</p>\n" }
        var html = "<section class=\"index\"><h2>Cases</h2>\n<table>\n<thead><tr><th>Case</th><th>Kind</th><th>Account</th>"
            + "<th>Verdict</th><th>Steps</th><th>First problem</th></tr></thead>\n<tbody>\n"
        for (index, matrixCase) in cases.enumerated() {
            let problem = matrixCase.firstProblem.map { $0.text(orElse: StepText.label) }
            // A case with no problem but a skip says why it was skipped: "skipped" alone tells QA nothing.
            let skip = problem == nil ? matrixCase.firstSkip.map { "skipped " + $0.text(orElse: StepText.label) } : nil
            let name = "<code>\(Markup.text(matrixCase.id))</code>"
            html += "<tr class=\"case-row\" data-verdict=\"\(matrixCase.verdict.rawValue)\" data-kind=\"\(Markup.attribute(matrixCase.kind))\">"
                + "<td>" + (detailed(index) ? "<a href=\"#case-\(index)\">\(name)</a>" : name) + "</td>"
                + "<td>\(Markup.text(matrixCase.kind))</td><td>\(Markup.text(matrixCase.account.alias))</td>"
                + "<td>\(verdictBadge(matrixCase.label))</td><td>\(matrixCase.counts.phrase)</td>"
                + (skip.map { "<td class=\"problem muted\">\(Markup.text($0))</td>" } ?? "<td class=\"problem\">\(Markup.text(problem ?? ""))</td>") + "</tr>\n"
        }
        return html + "</tbody>\n</table>\n</section>\n"
    }

    /// One case's section: its timeline and its steps with expected and observed values, appended to `html`,
    /// which is handed to `flush` whenever it holds more than ``flushSize`` bytes (and at the end), so that a case
    /// of many thousand steps is never one buffer.
    ///
    /// - Parameter label: the case's label (``CaseOverview/label``).
    static func caseSection(_ matrixCase: CaseEvidence, index: Int, label: String, into html: inout MarkupBuffer,
                            flush: (inout MarkupBuffer) throws -> Void) rethrows {
        html.append("<section class=\"case\" id=\"case-")
        html.int(index)
        html.append("\" data-verdict=\"")
        html.raw(matrixCase.verdict.rawValue)
        html.append("\" data-kind=\"")
        html.attribute(matrixCase.kind)
        html.append("\">\n<h2>")
        verdictBadge(label, into: &html)
        html.append(" <code>")
        html.text(matrixCase.id)
        html.append("</code></h2>\n<p class=\"case-meta\">kind <b>")
        html.text(matrixCase.kind)
        html.append("</b> · account <b>")
        html.text(matrixCase.account.alias)
        html.append("</b> (")
        html.text(matrixCase.account.state)
        html.append(") · ")
        html.raw(matrixCase.counts.phrase)
        html.append("</p>\n")
        let timeline = Timeline(matrixCase: matrixCase, index: index)
        let points = timeline.points
        var first: Int64?
        var last: Int64?
        for time in points.lazy.compactMap(\.time) {
            first = min(first ?? time, time)
            last = max(last ?? time, time)
        }
        let caption: String
        if let first, let last {
            caption = first == last
                ? "Every step at store time \(StepText.storeTimeText(first))."
                : "Store time from \(StepText.storeTimeText(first)) to \(StepText.storeTimeText(last)) (\(StepText.elapsed(from: first, to: last)))."
        } else {
            caption = "No store time was observed; steps are shown in order."
        }
        html.append("<figure class=\"timeline\"><div class=\"scroll\">")
        try timeline.render(points, into: &html, flush: flush)
        html.append("</div>\n<figcaption>")
        html.text(caption)
        html.append(" Steps at the same store time are drawn ")
        html.int(Timeline.minimumGap)
        html.append(" px apart.</figcaption></figure>\n")
        html.append("<table class=\"steps\">\n<thead><tr><th>#</th><th>Step</th><th>Verdict</th><th>Store time</th>")
        html.append("<th>Expected</th><th>Observed</th><th>Reason</th></tr></thead>\n<tbody>\n")
        for record in matrixCase.records {
            stepRow(record, in: matrixCase, into: &html)
            if html.bytes.count > flushSize { try flush(&html) }
        }
        html.append("</tbody>\n</table>\n</section>\n")
        try flush(&html)
    }

    /// How many bytes a case section's buffer holds before it is handed on.
    static let flushSize = 1 << 16

    private static func verdictBadge(_ label: String, into html: inout MarkupBuffer) {
        html.append("<span class=\"badge v-")
        let name = label.lowercased()
        html.attribute(name.contains(" ") ? name.replacingOccurrences(of: " ", with: "-") : name)
        html.append("\">")
        html.text(label)
        html.append("</span>")
    }

    /// A step's row of the case's table of steps.
    private static func stepRow(_ record: EvidenceRecord, in matrixCase: CaseEvidence, into html: inout MarkupBuffer) {
        html.append("<tr class=\"v-")
        html.raw(record.verdict.rawValue)
        html.append("\"><td>")
        html.int(record.step)
        html.append("</td><td><code>")
        html.text(StepText.describe(record.action))
        html.append("</code></td><td>")
        verdictBadge(StepText.label(record.verdict), into: &html)
        html.append("</td><td class=\"time\">")
        html.text(StepText.storeTimeText(StepText.storeTime(record)))
        html.append("</td><td class=\"wrap\">")
        let rows = StepText.comparisons(record)
        if rows.isEmpty {
            html.append("<span class=\"muted\">not judged</span>")
        } else {
            for row in rows {
                html.append("<div><span class=\"field\">")
                html.text(row.field)
                html.append("</span> ")
                html.text(row.expected)
                html.append("</div>")
            }
        }
        html.append("</td><td class=\"wrap\">")
        if rows.isEmpty {
            if let observed = record.observed {
                html.append("<div><span class=\"field\">access</span> ")
                html.text(Judge.render(observed.access))
                html.append("</div>")
            } else {
                html.append("<span class=\"muted\">")
                html.raw(StepText.notObserved)
                html.append("</span>")
            }
        } else {
            for row in rows {
                html.append(row.differs ? "<div class=\"differs\"><span class=\"field\">" : "<div><span class=\"field\">")
                html.text(row.field)
                html.append("</span> ")
                if row.unobserved {
                    html.append("<span class=\"muted\">")
                    html.text(row.observed)
                    html.append("</span>")
                } else {
                    html.text(row.observed)
                }
                html.append("</div>")
            }
        }
        if let ids = record.observed?.transactionIds, !ids.isEmpty {
            html.append("<div class=\"muted\">transactions ")
            for (i, id) in ids.enumerated() {
                if i > 0 { html.append(", ") }
                html.text(id)
            }
            html.append("</div>")
        }
        if let message = record.observed?.message {
            html.append("<div class=\"muted\">app said “")
            html.text(message)
            html.append("”</div>")
        }
        if let message = record.observed?.storeMessage {
            html.append("<div class=\"muted\">store: ")
            html.text(message)
            html.append("</div>")
        }
        html.append("</td><td class=\"wrap\">")
        html.text(record.verdict == .blocked ? matrixCase.blockedMessage(for: record) : (record.reason ?? ""))
        html.append("</td></tr>\n")
    }
}
