import Foundation
import MatrixEngine
import MatrixJSON
import MatrixModel
import Threading

/// Prints one line per finished case (and per step with `--verbose`), then the run's summary.
final class ProgressPrinter: Sendable {
    private let console: Console
    private let total: Int
    /// Where the matrix's steps are: a case line that did not pass names its first problem's step
    /// (`release.json:41:9`), and GitHub Actions annotates failing steps there.
    private let locations: MatrixLocations?
    /// Cases finished so far, counted as parallel cases end.
    private let done = Locked(0)

    init(console: Console, total: Int, locations: MatrixLocations? = nil) {
        self.console = console
        self.total = total
        self.locations = locations
    }

    func handle(_ event: RunEvent) {
        switch event {
        case .stepFinished(let record):
            console.detail(Self.stepLine(record))
            if let locations, console.annotates, record.verdict == .fail || record.verdict == .error {
                console.annotate(locations.command(for: record))
            }
        case .caseFinished(let result):
            let count = done.withLock { done in
                done += 1
                return done
            }
            let always = result.verdict == .fail || result.verdict == .error
            // `--quiet` shows only the cases that did not pass: the others' lines are not worth making.
            guard always || !console.quiet else { return }
            console.info(caseLine(result, count: count), always: always)
        }
    }

    /// `    refund/pro #3 relaunch: blocked — step 2 (refund) failed` (a reason that starts with the verdict
    /// does not repeat it).
    static func stepLine(_ record: EvidenceRecord) -> String {
        var line = "    \(record.case) #\(record.step) \(record.action.action.rawValue): \(record.verdict.rawValue)"
        if var reason = record.reason {
            if reason.hasPrefix(record.verdict.rawValue + ": ") { reason.removeFirst(record.verdict.rawValue.count + 2) }
            line += " — " + reason
        }
        return TerminalText.visible(line)
    }

    /// `[ 3/17] PASS    fresh-purchase/pro`, and the first problem of a case that did not pass, with where its
    /// step is in the matrix (`release.json:41:9`, as compilers locate an error).
    func caseLine(_ result: CaseResult, count: Int) -> [Console.Part] {
        let width = String(total).count
        let counter = "[\(String(count).leftPadded(to: width))/\(total)]"
        var line = " " + TerminalText.visible(result.id)
        if let problem = result.firstProblem, result.verdict != .pass {
            line += " — " + TerminalText.visible(problem)
            if let step = result.firstProblemStep, let location = locations?.location(case: result.id, step: step) {
                line += " (" + TerminalText.visible(location) + ")"
            }
        }
        return [.text(counter + " "), label(result.verdict), .text(line)]
    }

    func label(_ verdict: Verdict) -> Console.Part {
        // Padded to the longest label, `SKIPPED`, without Foundation's `padding(toLength:)`: a line per case.
        let text = verdict.rawValue.uppercased().rightPadded(to: 7)
        switch verdict {
        case .pass: return .painted(text, .green)
        case .fail, .error: return .painted(text, .red)
        case .blocked, .skipped: return .painted(text, .yellow)
        }
    }

    /// `17 cases: 17 pass · 74 steps: 74 pass · evidence: reports/local/…`.
    func summary(_ summary: RunSummary, of total: Int? = nil, shard: String? = nil, selection: String? = nil, directory: String) {
        console.info(Self.summaryLine(summary, of: total, shard: shard, selection: selection, directory: directory), always: true)
    }

    /// - Parameters:
    ///   - total: how many cases the run has; an interrupted run's line says how many of them ended.
    ///   - selection: the cases the run selected, in words (`profile smoke, 8 of 57 cases`).
    static func summaryLine(_ summary: RunSummary, of total: Int? = nil, shard: String? = nil, selection: String? = nil,
                            directory: String) -> String {
        func counts(_ values: [Verdict: Int]) -> String {
            let parts = Verdict.allCases.compactMap { verdict in values[verdict].map { "\($0) \(verdict.rawValue)" } }
            return parts.isEmpty ? "none" : parts.joined(separator: ", ")
        }
        let cases = summary.cases.values.reduce(0, +)
        let steps = summary.steps.values.reduce(0, +)
        let ofTotal = total.map { summary.interrupted && $0 > cases ? " of \($0)" : "" } ?? ""
        var line = "\(cases)\(ofTotal) case\((total ?? cases) == 1 ? "" : "s"): \(counts(summary.cases)) · \(steps) step\(steps == 1 ? "" : "s"): \(counts(summary.steps))"
        let unjudged = [(summary.passesWithoutExpectation, "without an expectation"),
                        (summary.passesWithNothingObserved, "with none of their expectation observed")]
            .filter { $0.0 > 0 }.map { "\($0.0) pass \($0.1)" }
        if !unjudged.isEmpty { line += " (" + unjudged.joined(separator: ", ") + ")" }
        let exercised = summary.stepCounts
        if exercised.performed < exercised.total { line += " · " + exercised.performedShare }
        if summary.interrupted { line += " · interrupted" }
        if let selection { line += " · selected: \(Console.visible(selection))" }
        if let shard { line += " · shard \(shard)" }
        return line + " · evidence: \(directory)"
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }

    func rightPadded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
