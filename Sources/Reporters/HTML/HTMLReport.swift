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

    /// One case's section: its timeline and its steps with expected and observed values, handed to `write` in
    /// pieces (a step's at a time), so that a case of many thousand steps is never one string.
    ///
    /// - Parameter label: the case's label (``CaseOverview/label``).
    static func caseSection(_ matrixCase: CaseEvidence, index: Int, label: String, into write: (String) throws -> Void) rethrows {
        var html = "<section class=\"case\" id=\"case-\(index)\" data-verdict=\"\(matrixCase.verdict.rawValue)\""
            + " data-kind=\"\(Markup.attribute(matrixCase.kind))\">\n"
        html += "<h2>\(verdictBadge(label)) <code>\(Markup.text(matrixCase.id))</code></h2>\n"
        html += "<p class=\"case-meta\">kind <b>\(Markup.text(matrixCase.kind))</b> · account <b>\(Markup.text(matrixCase.account.alias))</b>"
            + " (\(Markup.text(matrixCase.account.state))) · \(matrixCase.counts.phrase)</p>\n"
        let timeline = Timeline(matrixCase: matrixCase, index: index)
        let times = timeline.points.compactMap(\.time)
        let caption: String
        if let first = times.min(), let last = times.max() {
            caption = first == last
                ? "Every step at store time \(StepText.storeTimeText(first))."
                : "Store time from \(StepText.storeTimeText(first)) to \(StepText.storeTimeText(last)) (\(StepText.elapsed(from: first, to: last)))."
        } else {
            caption = "No store time was observed; steps are shown in order."
        }
        try write(html + "<figure class=\"timeline\"><div class=\"scroll\">")
        try timeline.render(into: write)
        try write("</div>\n<figcaption>\(Markup.text(caption)) Steps at the same store time are drawn \(Timeline.minimumGap) px apart.</figcaption></figure>\n"
            + "<table class=\"steps\">\n<thead><tr><th>#</th><th>Step</th><th>Verdict</th><th>Store time</th>"
            + "<th>Expected</th><th>Observed</th><th>Reason</th></tr></thead>\n<tbody>\n")
        for record in matrixCase.records {
            try write(stepRow(record, in: matrixCase))
        }
        try write("</tbody>\n</table>\n</section>\n")
    }

    private static func stepRow(_ record: EvidenceRecord, in matrixCase: CaseEvidence) -> String {
        let rows = StepText.comparisons(record)
        let expected = rows.isEmpty ? "<span class=\"muted\">not judged</span>"
            : rows.map { "<div><span class=\"field\">\(Markup.text($0.field))</span> \(Markup.text($0.expected))</div>" }.joined()
        var observed: String
        if rows.isEmpty {
            observed = record.observed.map { "<div><span class=\"field\">access</span> \(Markup.text(Judge.render($0.access)))</div>" }
                ?? "<span class=\"muted\">\(StepText.notObserved)</span>"
        } else {
            observed = rows.map {
                let value = $0.unobserved ? "<span class=\"muted\">\(Markup.text($0.observed))</span>" : Markup.text($0.observed)
                return "<div\($0.differs ? " class=\"differs\"" : "")><span class=\"field\">\(Markup.text($0.field))</span> \(value)</div>"
            }.joined()
        }
        if let ids = record.observed?.transactionIds, !ids.isEmpty {
            observed += "<div class=\"muted\">transactions \(Markup.text(ids.joined(separator: ", ")))</div>"
        }
        if let message = record.observed?.message {
            observed += "<div class=\"muted\">app said “\(Markup.text(message))”</div>"
        }
        if let message = record.observed?.storeMessage {
            observed += "<div class=\"muted\">store: \(Markup.text(message))</div>"
        }
        let reason = record.verdict == .blocked ? matrixCase.blockedMessage(for: record) : (record.reason ?? "")
        return "<tr class=\"v-\(record.verdict.rawValue)\"><td>\(record.step)</td>"
            + "<td><code>\(Markup.text(StepText.describe(record.action)))</code></td>"
            + "<td>\(verdictBadge(StepText.label(record.verdict)))</td>"
            + "<td class=\"time\">\(Markup.text(StepText.storeTimeText(StepText.storeTime(record))))</td>"
            + "<td class=\"wrap\">\(expected)</td><td class=\"wrap\">\(observed)</td><td class=\"wrap\">\(Markup.text(reason))</td></tr>\n"
    }
}
