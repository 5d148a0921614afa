import Foundation
import MatrixModel
import Reporters

/// An output format of `matrix compare`.
public enum CompareFormat: String, Sendable, Hashable, CaseIterable {
    /// A table for the terminal.
    case text
    /// GitHub-flavoured Markdown, e.g. for a job summary.
    case markdown
    /// The ``Comparison`` as JSON, versioned by `compareVersion`.
    case json
}

/// Renders a ``Comparison`` (built by ``Comparator/compare(_:)``) as text, Markdown or JSON.
public enum ComparisonReport {
    /// The comparison in `format`, UTF-8, ending with a newline.
    public static func render(_ comparison: Comparison, as format: CompareFormat) -> Data {
        switch format {
        case .text: Data(ComparisonText.render(comparison).utf8)
        case .markdown: Data(ComparisonMarkdown.render(comparison).utf8)
        case .json: json(comparison)
        }
    }

    /// Pretty-printed JSON with sorted keys, unescaped slashes and a trailing newline; absent values are left
    /// out.
    public static func json(_ comparison: Comparison) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Strings, numbers, arrays and dictionaries of them: encoding cannot fail.
        var data = (try? encoder.encode(comparison)) ?? Data()
        data.append(0x0A)
        return data
    }

    /// What the differences section says when there are none: that every step compared agreed, or that no step
    /// was in two runs to compare.
    static func noDifferences(_ comparison: Comparison) -> String {
        comparison.stepsCompared == 0 ? "Nothing compared: no step is in more than one of the runs."
            : "No differences: every step compared has the same verdict in every run."
    }

    /// A cell's verdict and observed access: `pass []`, `fail ["pro"]`, `error`.
    static func cellText(_ cell: Comparison.Cell) -> String {
        guard let access = cell.access else { return cell.verdict.rawValue }
        return cell.verdict.rawValue + " " + Judge.render(access)
    }

    /// The classification, with the limits it rests on for known divergences.
    static func classificationText(_ difference: Comparison.Difference) -> String {
        guard difference.classification == .knownEnvironmentDivergence, !difference.divergences.isEmpty else {
            return difference.classification.label
        }
        return difference.classification.label + " (" + difference.divergences.map(\.id.rawValue).joined(separator: ", ") + ")"
    }

    /// Every divergence the differences cite, once, in order of first citation.
    static func citedDivergences(_ comparison: Comparison) -> [(divergence: Comparison.DivergenceNote, environment: String)] {
        var seen: Set<KnownDivergence> = []
        var result: [(Comparison.DivergenceNote, String)] = []
        for note in comparison.differences.flatMap(\.divergences) where seen.insert(note.id).inserted {
            result.append((note, note.id.environmentNames))
        }
        return result
    }

    /// `4 differences: 1 app logic, 3 known environment divergence`.
    static func countsText(_ comparison: Comparison) -> String {
        let total = comparison.differences.count
        guard total > 0 else { return "no differences" }
        let parts = Classification.allCases.compactMap { classification -> String? in
            let count = comparison.counts[classification.rawValue] ?? 0
            return count > 0 ? "\(count) \(classification.label)" : nil
        }
        return "\(total) difference\(total == 1 ? "" : "s"): " + parts.joined(separator: ", ")
    }

    /// The closing line: what was compared, the counts, and how many differences need attention.
    static func summaryText(_ comparison: Comparison) -> String {
        var line = "\(comparison.stepsCompared) step\(comparison.stepsCompared == 1 ? "" : "s") compared in "
            + "\(comparison.casesCompared) case\(comparison.casesCompared == 1 ? "" : "s") · " + countsText(comparison)
        if comparison.unexplained > 0 {
            line += " · \(comparison.unexplained) not explained by a known environment divergence"
        } else if !comparison.differences.isEmpty {
            line += " · all explained by known environment divergences"
        }
        if !comparison.unmatched.isEmpty {
            line += " · \(comparison.unmatched.count) not in every run"
        }
        return line
    }

    /// `step 3` or `whole case`.
    static func unmatchedStep(_ item: Comparison.Unmatched) -> String {
        item.step.map { "step \($0)" } ?? "whole case"
    }
}
