import Foundation
import MatrixComparison
import Reporters

/// `matrix compare RUN_DIR RUN_DIR…`: joins runs on case and step and classifies every difference.
struct CompareCommand {
    let console: Console

    static let spec = CommandSpec(
        ["compare"], summary: "Compare runs step by step and classify where each difference comes from",
        usage: ["RUN_DIR RUN_DIR… [--format text|markdown|json]"],
        discussion: """
            Joins the runs on case id and step index and prints, for every step whose verdicts differ, each run's \
            verdict and observed access and where the difference comes from: expectation contradicts StoreKit \
            (fails in local), app logic (passes in local, fails in an app environment such as exec or xcode), \
            product setup (passes in local or an app environment, fails in sandbox), distributed build (passes in \
            sandbox, fails in testflight), known environment divergence (a documented limit of Sandbox or \
            TestFlight), or inconclusive. Cases missing from some runs and runs of different matrix versions are \
            reported. See docs/compare.md.
            Exit status: 0 no difference, or only known environment divergences; 1 a difference needs attention; \
            64 fewer than two runs; 65 a RUN_DIR is not a run directory, or the runs have no step in common; 66 a \
            RUN_DIR cannot be read.
            """,
        positionals: [Positional("RUN_DIR…", "two or more run directories")],
        options: [
            .value(.format, "FORMAT", "text (default), markdown or json", choices: Choices(CompareFormat.self)),
            .flag(.quiet, "print only errors"),
        ])

    func execute(_ arguments: [String]) throws(CommandFailure) -> ExitCode {
        guard let args = try Arguments.parse(arguments, for: Self.spec, on: console) else { return .success }
        console.quiet = args.has(.quiet)
        let format = try args.choice(.format, as: CompareFormat.self) ?? .text
        guard args.positionals.count >= 2 else {
            throw .usage("compare needs at least two run directories, got \(args.positionals.count)")
        }
        var runs: [ComparedRun] = []
        for path in args.positionals {
            runs.append(try RunInput.load(path, console: console).compared)
        }
        let comparison = Comparator.compare(runs)
        if format != .text {
            // The text table carries its warnings itself; other formats may go to a file or a job summary.
            for warning in comparison.warnings { console.warning(warning) }
        }
        let rendered = ComparisonReport.render(comparison, as: format)
        // The text table is for a person at a terminal; the other formats are artifacts, written as rendered.
        if format == .text { console.outputText(String(decoding: rendered, as: UTF8.self)) } else { console.outputData(rendered) }
        // Runs with no step in common prove nothing about each other: a gate on them must not pass.
        guard comparison.stepsCompared > 0 else {
            throw CommandFailure("the runs have no step in common, so nothing was compared",
                                 hint: "compare runs of the same matrix whose case selections overlap (each run.json names its matrix)",
                                 code: .dataError)
        }
        return comparison.unexplained > 0 ? .failure : .success
    }
}
