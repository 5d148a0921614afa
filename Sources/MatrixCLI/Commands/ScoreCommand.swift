import Foundation
import Adapters
import MatrixCore
import StoreSimulator

/// `matrix score MATRIX`: runs the reference app and each known app fault on the local environment and
/// reports which faults the matrix catches. A matrix that catches none is not an acceptance matrix.
struct ScoreCommand {
    let console: Console

    static let options: [Arguments.Option] = [
        .init(name: "--min-score", takesValue: true, help: "lowest passing score in percent (default 100)", valueName: "PERCENT"),
        .init(name: "--format", takesValue: true, help: "text (default) or json", valueName: "FORMAT"),
        .init(name: "--jobs", takesValue: true, help: "cases run at once (default: number of cores)", valueName: "N"),
        .init(name: "--help", takesValue: false, help: "show this help"),
    ]

    static let help = """
        USAGE: matrix score MATRIX [--min-score PERCENT] [--format text|json]

        Runs MATRIX on the local environment with the reference app, then once per known app fault (see
        `matrix faults`), and prints which case and step catches each fault. Nothing is written to reports/.
        Exit status: 0 when the reference passes and the score reaches --min-score (default 100), 1 otherwise.

        OPTIONS:
        \(Arguments.help(options))
        """

    /// How one run of the matrix went.
    struct FaultResult: Encodable {
        var fault: String
        var summary: String
        /// The first case and step that did not pass, or `nil` when the fault was missed.
        var caughtBy: String?
        var reason: String?
    }

    func execute(_ arguments: [String]) async throws(CommandFailure) -> ExitCode {
        let args = try Arguments(arguments, options: Self.options)
        if args.has("--help") {
            console.output(Self.help + "\n")
            return .success
        }
        guard args.positionals.count == 1, let path = args.positionals.first else { throw .usage("score takes one MATRIX") }
        let minimum = try args.int("--min-score", in: 0...100) ?? 100
        let format = args.value("--format") ?? "text"
        guard format == "text" || format == "json" else { throw .usage("--format must be text or json") }
        let jobs = try args.int("--jobs", in: 1...256) ?? ProcessInfo.processInfo.activeProcessorCount
        let (loaded, diagnostics, _) = try InputFiles.loadMatrix(path)
        _ = MatrixCommand.report(diagnostics, on: console)
        guard let matrix = loaded else { throw CommandFailure("\(path) is not valid; nothing was run", code: .dataError) }

        let reference = try await firstProblem(matrix, fault: nil, jobs: jobs)
        var results: [FaultResult] = []
        for fault in AppFault.allCases {
            let problem = try await firstProblem(matrix, fault: fault, jobs: jobs)
            results.append(FaultResult(fault: fault.rawValue, summary: fault.summary, caughtBy: problem.map { "\($0.case) #\($0.step) \($0.action.action.rawValue)" },
                                       reason: problem?.reason))
        }
        let caught = results.filter { $0.caughtBy != nil }.count
        let score = results.isEmpty ? 0 : caught * 100 / results.count
        let referencePasses = reference == nil
        if format == "json" {
            struct Report: Encodable {
                var matrix: String
                var referencePasses: Bool
                var referenceProblem: String?
                var faults: [FaultResult]
                var caught: Int
                var score: Int
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let report = Report(matrix: path, referencePasses: referencePasses,
                                referenceProblem: reference.map { "\($0.case) #\($0.step): \($0.reason ?? $0.verdict.rawValue)" },
                                faults: results, caught: caught, score: score)
            console.outputData(((try? encoder.encode(report)) ?? Data()) + Data("\n".utf8))
        } else {
            if let reference {
                console.info(console.paint("reference app FAILS", .red) + " at \(reference.case) #\(reference.step) \(reference.action.action.rawValue): \(reference.reason ?? reference.verdict.rawValue)", always: true)
            } else {
                console.output("reference app    passes every step\n")
            }
            let width = results.map(\.fault.count).max() ?? 0
            for result in results {
                let name = result.fault.padding(toLength: width + 2, withPad: " ", startingAt: 0)
                console.output(name + (result.caughtBy.map { "caught by \($0)" } ?? "MISSED — \(result.summary)") + "\n")
            }
            console.output("score: \(caught)/\(results.count) faults caught (\(score) %)\n")
        }
        return referencePasses && score >= minimum ? .success : .failure
    }

    /// Runs the matrix in memory and returns the first record that is not a pass or a skip.
    func firstProblem(_ matrix: Matrix, fault: AppFault?, jobs: Int) async throws(CommandFailure) -> EvidenceRecord? {
        let adapter: LocalAdapter
        do {
            adapter = try LocalAdapter(fault: fault, signing: false)
        } catch {
            throw CommandFailure("the local environment is unavailable: \(error)", code: .unavailable)
        }
        let context = RunContext(runID: "score", environment: "local", build: "score", device: "embedded simulator", os: "n/a")
        let sink = FirstProblemSink()
        do {
            _ = try await Runner(matrix: matrix, adapter: adapter, context: context, jobs: jobs).run(into: sink)
        } catch {
            throw CommandFailure("scoring failed: \(error)", code: .software)
        }
        return await sink.first
    }
}

/// Keeps the first record that did not pass.
actor FirstProblemSink: EvidenceSink {
    var first: EvidenceRecord?

    func append(_ record: EvidenceRecord) async throws {
        if first == nil, record.verdict != .pass, record.verdict != .skipped { first = record }
    }
}
