import FaultScoring
import Foundation
import LocalEnvironment

/// `matrix score MATRIX`: runs the reference app and each known app fault on the local environment and
/// reports which faults the matrix catches. A matrix that catches none is not an acceptance matrix.
struct ScoreCommand {
    let console: Console

    static let spec = CommandSpec(
        ["score"], summary: "Run the reference app and every known app fault; report which the matrix catches",
        usage: ["MATRIX [--min-score PERCENT] [--format text|json]"],
        discussion: """
            Runs MATRIX on the local environment with the reference app, then once per known app fault (see \
            `matrix faults`), and prints which case and step catches each fault. A fault the catalog cannot show \
            (no family-shareable product for a Family Sharing bug, no subscription for a grace-period bug), or that \
            the matrix's tiers cannot show (an upgrade between levels that grant the same tier), is not applicable, \
            with the reason; the score is over applicable faults. A missed fault names the kind of case and the \
            product that would catch it. Nothing is written to reports/.
            A fault counts as caught only at a step the reference app passes; when the reference fails a step, the \
            expectation contradicts StoreKit there, the score says so first and names the failing steps.
            Exit status: 0 when the reference passes and the score reaches --min-score (default 100), 1 otherwise.
            """,
        positionals: [Positional("MATRIX", "the matrix file to score")],
        options: [
            .value(.minScore, "PERCENT", "lowest passing score in percent (default 100)"),
            .value(.format, "FORMAT", "text (default) or json", choices: .textOrJSON),
            .value(.jobs, "N", "cases run at once (default: number of cores)"),
        ] + SelectionOptions.options)

    func execute(_ arguments: [String]) async throws(CommandFailure) -> ExitCode {
        guard let args = try Arguments.parse(arguments, for: Self.spec, on: console) else { return .success }
        guard args.positionals.count == 1, let path = args.positionals.first else {
            throw .usage(args.positionals.isEmpty ? "missing MATRIX (the matrix file to score)" : "score takes one MATRIX, got \(args.positionals.count)")
        }
        let minimum = try args.int(.minScore, in: 0...100) ?? 100
        let format = try args.choice(.format) ?? "text"
        let jobs = try args.int(.jobs, in: 1...256) ?? ProcessInfo.processInfo.activeProcessorCount
        let (loaded, diagnostics, bytes) = try InputFiles.loadMatrix(path)
        _ = MatrixCommand.report(diagnostics, on: console)
        guard let whole = loaded else { throw CommandFailure("\(path) is not valid; nothing was run", code: .dataError) }
        let selection = SelectionOptions.selection(args)
        let matrix = try SelectionOptions.selected(whole, selection)
        if !selection.isEmpty {
            console.info("scoring \(matrix.cases.count) of the matrix's \(whole.cases.count) cases (\(Console.visible(selection.summary)))", always: true)
        }

        let score: FaultScorer.Score
        do {
            score = try await FaultScorer.score(matrix, jobs: jobs)
        } catch {
            throw CommandFailure(error.message, code: error.environmentUnavailable ? .unavailable : .software)
        }
        let problems = score.referenceProblems.map { "\($0.case) #\($0.step) \($0.action.action.rawValue): \($0.reason ?? $0.verdict.rawValue)" }
        if format == "json" {
            struct Report: Encodable {
                var matrix: String
                var referencePasses: Bool
                var referenceProblem: String?
                /// Every step the reference app fails or errors at; faults are credited only at other steps.
                var referenceProblems: [String]
                var faults: [FaultScorer.FaultResult]
                var applicable: Int
                var caught: Int
                var score: Int
            }
            let report = Report(matrix: path, referencePasses: score.referencePasses, referenceProblem: problems.first,
                                referenceProblems: problems, faults: score.results, applicable: score.applicable, caught: score.caught,
                                score: score.percent)
            console.outputData(try JSONOutput.encode(report) + Data("\n".utf8))
        } else {
            if !problems.isEmpty {
                // The reference is the expectation's check: where it fails, the matrix contradicts StoreKit, and no
                // fault is credited there.
                console.info([.painted("reference app FAILS", .red), .text(" \(problems.count) step\(problems.count == 1 ? "" : "s"); "
                             + "the matrix contradicts StoreKit there, and faults are credited only at the steps it passes:")], always: true)
                // Each located as compilers locate an error, to find the step in the matrix.
                let locations = MatrixLocations(file: path, bytes: bytes)
                for (problem, step) in zip(problems, score.referenceProblems) {
                    let location = locations.location(case: step.case, step: step.step).map { " (\($0))" } ?? ""
                    console.info("  " + Console.visible(problem + location), always: true)
                }
                console.outputText("reference app    FAILS \(problems.count) step\(problems.count == 1 ? "" : "s") (see above); "
                               + "the score below counts only steps it passes\n")
            } else {
                console.output("reference app    passes every step\n")
            }
            let width = score.results.map(\.fault.count).max() ?? 0
            for result in score.results {
                let name = result.fault.padding(toLength: width + 2, withPad: " ", startingAt: 0)
                let verdict: String
                if let caughtBy = result.caughtBy {
                    verdict = "caught by \(caughtBy)"
                } else if !result.applicable {
                    verdict = "not applicable — \(result.notApplicableReason ?? "the catalog cannot show it")"
                } else {
                    verdict = "MISSED — \(result.summary)" + (result.wouldCatch.map { "; \($0) would catch it" } ?? "")
                }
                console.outputText(name + verdict + "\n")
            }
            let skipped = score.results.count - score.applicable
            console.output("score: \(score.caught)/\(score.applicable) faults caught (\(score.percent) %)"
                + (skipped > 0 ? "; \(skipped) not applicable to this catalog" : "")
                + (problems.isEmpty ? "" : "; not an acceptance score: the reference app fails \(problems.count) step\(problems.count == 1 ? "" : "s")") + "\n")
        }
        return score.referencePasses && score.percent >= minimum ? .success : .failure
    }
}
