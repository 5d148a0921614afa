import MatrixModel
import Reporters

/// `matrix compare --format markdown`: GitHub-flavoured Markdown with the warnings as a GitHub alert, the runs,
/// one table row per difference, the documented limits cited with their Apple pages, and what is not in every
/// run.
enum ComparisonMarkdown {
    static func render(_ comparison: Comparison) -> String {
        var lines: [String] = []
        lines.append("# StoreKit Matrix: compare — \(headline(comparison))")
        for warning in comparison.warnings {
            lines.append("")
            lines.append("> [!WARNING]")
            lines.append("> " + Markdown.text(warning))
        }
        lines.append("")
        lines.append("## Runs")
        lines.append("")
        lines.append("| Run | Environment | Clock | Build | Run id | Matrix | Status | Path |")
        lines.append("|---|---|---|---|---|---|---|---|")
        for run in comparison.runs {
            lines.append("| " + [
                Markdown.text(run.label), Markdown.text(run.environment), run.clock.map(Markdown.text) ?? "—", Markdown.text(run.build), Markdown.code(run.runId),
                Markdown.text(run.matrixName) + " " + Markdown.code(String(run.matrixSHA256.prefix(12))), Markdown.text(run.status),
                Markdown.code(run.path),
            ].joined(separator: " | ") + " |")
        }
        lines.append("")
        lines.append("## Differences")
        lines.append("")
        if comparison.differences.isEmpty {
            lines.append(ComparisonReport.noDifferences(comparison))
        } else {
            let labels = comparison.runs.map(\.label)
            lines.append("| Case | Step | " + labels.map(Markdown.text).joined(separator: " | ") + " | Classification |")
            lines.append("|---|---|" + String(repeating: "---|", count: labels.count) + "---|")
            for difference in comparison.differences {
                let cells = labels.map { label -> String in
                    guard let cell = difference.cells.first(where: { $0.run == label }) else { return "—" }
                    let verdict = cell.verdict == .pass ? "PASS" : "**\(cell.verdict.rawValue.uppercased())**"
                    return verdict + (cell.access.map { " " + Markdown.code(Judge.render($0)) } ?? "")
                }
                var why = Markdown.text(difference.explanation)
                if !difference.blockedAfter.isEmpty {
                    why += Markdown.text(ComparisonText.blocked(difference.blockedAfter))
                }
                lines.append("| " + ([Markdown.code(difference.case), "\(difference.step) " + Markdown.code(difference.action)] + cells
                    + ["**\(Markdown.text(ComparisonReport.classificationText(difference)))**: " + why]).joined(separator: " | ") + " |")
            }
        }
        let cited = ComparisonReport.citedDivergences(comparison)
        if !cited.isEmpty {
            lines.append("")
            lines.append("## Known environment divergences")
            lines.append("")
            for (note, environment) in cited {
                let link = note.source.map { " [Apple documentation](\($0))" } ?? ""
                lines.append("- **\(note.id.rawValue)** (\(environment)): \(Markdown.text(note.summary))\(link)")
            }
        }
        if !comparison.unmatched.isEmpty {
            lines.append("")
            lines.append("## Not in every run")
            lines.append("")
            lines.append("| Case | Step | In | Missing from |")
            lines.append("|---|---|---|---|")
            for item in comparison.unmatched {
                lines.append("| " + [Markdown.code(item.case), ComparisonReport.unmatchedStep(item),
                                      Markdown.text(item.presentIn.joined(separator: ", ")),
                                      Markdown.text(item.missingFrom.joined(separator: ", "))].joined(separator: " | ") + " |")
            }
        }
        lines.append("")
        lines.append(Markdown.text(ComparisonReport.summaryText(comparison)))
        return lines.joined(separator: "\n") + "\n"
    }

    /// `no differences`, `3 differences, all known environment divergences`, `3 differences, 2 need attention`.
    static func headline(_ comparison: Comparison) -> String {
        let total = comparison.differences.count
        guard total > 0 else { return "no differences" }
        let noun = "\(total) difference\(total == 1 ? "" : "s")"
        if comparison.unexplained == 0 { return noun + ", all known environment divergences" }
        return noun + ", \(comparison.unexplained) need\(comparison.unexplained == 1 ? "s" : "") attention"
    }
}
