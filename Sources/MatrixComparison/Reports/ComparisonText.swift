import MatrixJSON
import Reporters

/// `matrix compare` for the terminal: the runs, warnings, one table row per difference with each run's verdict
/// and observed access, the documented limits cited, and a summary line. No colour: the command line adds none.
enum ComparisonText {
    static func render(_ comparison: Comparison) -> String {
        var lines: [String] = []
        lines.append("Runs:")
        lines += table(comparison.runs.map { run in
            ["  " + run.label, "run " + run.runId, "build " + run.build, run.clock.map { "clock " + $0 } ?? "",
             "matrix \(run.matrixName) \(run.matrixSHA256.prefix(12))", run.path]
        })
        for warning in comparison.warnings {
            lines.append("warning: " + warning)
        }
        lines.append("")
        if comparison.differences.isEmpty {
            lines.append(ComparisonReport.noDifferences(comparison))
        } else {
            let labels = comparison.runs.map(\.label)
            var rows = [["CASE", "STEP"] + labels + ["CLASSIFICATION"]]
            for difference in comparison.differences {
                let cells = labels.map { label in
                    difference.cells.first { $0.run == label }.map(ComparisonReport.cellText) ?? "—"
                }
                rows.append([difference.case, "\(difference.step) \(difference.action)"] + cells
                            + [ComparisonReport.classificationText(difference)])
            }
            lines += table(rows)
        }
        let cited = ComparisonReport.citedDivergences(comparison)
        if !cited.isEmpty {
            lines.append("")
            lines.append("Known environment divergences:")
            for (note, environment) in cited {
                lines.append("  \(note.id.rawValue) (\(environment)): \(note.summary)")
                lines.append("    " + (note.source ?? "no Apple page: the project's reading, see docs/compare.md"))
            }
        }
        let unexplained = comparison.differences.filter { !$0.classification.isExplained }
        if !unexplained.isEmpty {
            lines.append("")
            lines.append("Why:")
            for difference in unexplained {
                lines.append("  \(difference.case) step \(difference.step): \(difference.explanation)"
                             + blocked(difference.blockedAfter))
            }
        }
        if !comparison.unmatched.isEmpty {
            lines.append("")
            lines.append("Not in every run:")
            lines += table(comparison.unmatched.map { item in
                ["  " + item.case, ComparisonReport.unmatchedStep(item), "in " + item.presentIn.joined(separator: ", "),
                 "missing from " + item.missingFrom.joined(separator: ", ")]
            })
        }
        lines.append("")
        lines.append(ComparisonReport.summaryText(comparison))
        // Each entry is one line: a line break in a value (a run's path, a case id from its evidence) is escaped
        // with the rest.
        return lines.map { TerminalText.visible($0) }.joined(separator: "\n") + "\n"
    }

    /// ` (steps 3, 4 blocked after it)`, or nothing.
    static func blocked(_ steps: [Int]) -> String {
        guard !steps.isEmpty else { return "" }
        return " (step\(steps.count == 1 ? "" : "s") \(steps.map(String.init).joined(separator: ", ")) blocked after it)"
    }

    /// Rows as columns padded to their widest cell, two spaces apart; the last column is not padded.
    static func table(_ rows: [[String]]) -> [String] {
        let columns = rows.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
    }
}
