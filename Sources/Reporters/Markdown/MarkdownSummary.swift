import MatrixModel

/// Renders a run as GitHub-flavoured Markdown, `summary.md`: metadata, counts per verdict, a table of cases,
/// and every failure and error with expected versus observed values and the reason.
///
/// Verdicts are written as text (`PASS`, `FAIL`, …), never as emoji or colour alone.
public enum MarkdownSummary {
    /// `summary.md`.
    public static let fileName = "summary.md"

    /// The Markdown text, ending with a newline.
    /// - Throws: as ``Reports/render(_:records:manifest:)``.
    public static func render(records: [EvidenceRecord], manifest: RunManifest) throws -> String {
        String(decoding: try Reports.render(.markdown, records: records, manifest: manifest), as: UTF8.self)
    }

    /// Everything before the table's rows (``caseRow(_:)``) and the failures: title, metadata, counts and the
    /// heading of the table of cases.
    static func head(_ cases: [CaseOverview], counts: RunCounts, unjudged: UnjudgedPasses = .init(), manifest: RunManifest) -> String {
        let overall = Verdict.summarise(cases.map(\.verdict))
        var lines: [String] = []
        lines.append("# StoreKit Matrix: \(Markdown.text(StepText.runName(manifest))) — \(headline(overall, manifest, cases.isEmpty))")
        lines.append("")
        lines += metadata(manifest)
        lines.append("")
        lines.append("## Counts")
        lines.append("")
        lines.append("| | " + Verdict.allCases.map(\.rawValue).joined(separator: " | ") + " | total |")
        lines.append("|---|" + String(repeating: "---:|", count: Verdict.allCases.count + 1))
        for (name, row) in [("Cases", counts.cases), ("Steps", counts.steps)] {
            lines.append("| \(name) | " + Verdict.allCases.map { String(row[$0]) }.joined(separator: " | ") + " | \(row.total) |")
        }
        lines.append("")
        lines.append("Exercised: " + Markdown.text(StepText.exercised(counts.steps)))
        lines.append("")
        if unjudged.count > 0 {
            // A pass that judged nothing is not evidence of the behaviour: say which steps to check by hand.
            let named = unjudged.first.map { "\(Markdown.code($0.case, inTable: false)) #\($0.step)" }.joined(separator: ", ")
            let more = unjudged.count - unjudged.first.count
            lines.append("Not judged: \(unjudged.count) passing step\(unjudged.count == 1 ? " has" : "s have") none of \(unjudged.count == 1 ? "its" : "their") "
                         + "expectation observed (the environment cannot observe those fields; check them by hand): \(named)"
                         + (more > 0 ? ", and \(more) more" : ""))
            lines.append("")
        }
        lines.append("## Cases")
        lines.append("")
        if cases.isEmpty {
            lines.append("No steps were recorded.")
        } else {
            lines.append("| Case | Kind | Account | Verdict | Steps | First problem |")
            lines.append("|---|---|---|---|---|---|")
        }
        return lines.joined(separator: "\n")
    }

    /// A case's row of the table of cases that ends ``head(_:counts:manifest:)``, on a line of its own (the
    /// rows are rendered as the cases arrive, and follow the head).
    static func caseRow(_ matrixCase: CaseOverview) -> String {
        let problem = matrixCase.firstProblem.map { $0.text(orElse: StepText.label) }
        return "\n| " + [
            Markdown.code(matrixCase.id), Markdown.text(matrixCase.kind), Markdown.text(matrixCase.account.alias),
            "**\(matrixCase.label)**", matrixCase.counts.phrase, problem.map(Markdown.text) ?? "",
        ].joined(separator: " | ") + " |"
    }

    /// The heading of the failures section, which follows ``head(_:counts:manifest:)`` when there is a failure.
    static let problemsHeading = "\n\n## Failures and errors"

    /// Each failing or erroring step of a case as one block, to follow ``problemsHeading``.
    static func problemBlocks(_ matrixCase: CaseEvidence) -> [String] {
        matrixCase.records.filter { $0.verdict == .fail || $0.verdict == .error }.map {
            "\n\n" + problem($0, in: matrixCase).joined(separator: "\n")
        }
    }

    /// The paragraph that ends a failures section whose last `omitted` blocks were left out.
    static func omittedNote(_ omitted: Int, shown: Int) -> String {
        "\n\n_\(omitted) more failing or erroring step\(omitted == 1 ? " is" : "s are") not detailed here (the first \(shown) are); "
            + "every step is in `junit.xml` and `evidence.jsonl` (`report.html` details every case of a run of up to "
            + "\(ReportComposer.allCaseSectionsLimit) cases, otherwise the first \(ReportComposer.detailedProblemLimit) that did not pass)._"
    }

    /// The end of the document: the run's accounts and their starting states, after the cases and failures (a
    /// matrix written by `matrix init` has one account per case, so listing them first puts the counts and the
    /// failures screens below).
    static func tail(_ manifest: RunManifest) -> String {
        guard !manifest.accounts.isEmpty else { return "\n" }
        let rows = manifest.accounts.map { "| " + Markdown.code($0.alias) + " | " + Markdown.text($0.state) + " |" }
        return "\n\n## Accounts\n\n| Account | State |\n|---|---|\n" + rows.joined(separator: "\n") + "\n"
    }

    private static func headline(_ overall: Verdict, _ manifest: RunManifest, _ empty: Bool) -> String {
        switch manifest.status {
        case .running: "RUNNING"
        case .interrupted: "INTERRUPTED"
        case .complete: empty ? "NO STEPS" : StepText.label(overall)
        }
    }

    private static func metadata(_ manifest: RunManifest) -> [String] {
        var rows: [(String, String)] = [
            ("Run", Markdown.code(manifest.runId)),
            ("Status", manifest.status.rawValue),
            ("Environment", Markdown.text(StepText.environment(manifest.environment))),
            ("Build", Markdown.text(manifest.build)),
            ("Device", Markdown.text(manifest.device)),
            ("OS", Markdown.text(manifest.os)),
        ]
        if let selection = StepText.selection(manifest) { rows.append(("Selection", Markdown.text(selection))) }
        if let shard = StepText.shard(manifest) { rows.append(("Shard", Markdown.text(shard))) }
        if let clock = manifest.clock { rows.append(("Clock", Markdown.text(StepText.clock(clock, environment: manifest.environment)))) }
        if let fault = manifest.appFault { rows.append(("App fault", Markdown.text(StepText.appFault(fault)))) }
        if let guidance = manifest.guidance { rows.append(("Observations", Markdown.text(guidance))) }
        if let warnings = manifest.warnings, !warnings.isEmpty { rows.append(("Matrix warnings", Markdown.text("\(warnings.count) (see run.json)"))) }
        rows += [
            ("Matrix", Markdown.code(manifest.matrix.path) + " (" + Markdown.text(manifest.matrix.name) + ", SHA-256 "
                + Markdown.code(String(manifest.matrix.sha256.prefix(12))) + ")"),
            ("Started", manifest.startedAt),
            ("Ended", manifest.endedAt ?? "—"),
            ("Tool", "matrix " + Markdown.text(manifest.toolVersion)),
        ]
        if !manifest.accounts.isEmpty {
            rows.append(("Accounts", "\(manifest.accounts.count) (listed at the end)"))
        }
        return ["| | |", "|---|---|"] + rows.map { "| \($0.0) | \($0.1) |" }
    }

    private static func problem(_ record: EvidenceRecord, in matrixCase: CaseEvidence) -> [String] {
        var lines = ["### \(StepText.label(record.verdict)): " + Markdown.code(matrixCase.id, inTable: false) + " step \(record.step) "
            + Markdown.code(StepText.describe(record.action), inTable: false)]
        lines.append("")
        let rows = StepText.comparisons(record)
        if !rows.isEmpty {
            lines.append("| Field | Expected | Observed | |")
            lines.append("|---|---|---|---|")
            for row in rows {
                lines.append("| \(Markdown.text(row.field)) | \(Markdown.code(row.expected)) | \(Markdown.code(row.observed)) | "
                    + (row.differs ? "**differs**" : "") + " |")
            }
            lines.append("")
        }
        lines.append("Reason: " + Markdown.text(record.reason ?? "none given"))
        return lines
    }
}
