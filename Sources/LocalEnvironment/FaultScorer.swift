import MatrixEngine
import MatrixModel
import ReferenceApp

/// Runs a matrix with the reference app, then once per known app fault, and reports which faults the matrix
/// catches: the engine of `matrix score` (on the local environment, or any environment that runs the reference
/// app, such as the app harness or a driver).
///
/// Runs are in memory (nothing is written) and unsigned. A fault whose ``AppFault/requirement`` the matrix's
/// catalog does not meet, or that the matrix's tiers cannot show (``AppFault/notApplicableReason(in:)``), is not
/// run and counts as not applicable; the score is over applicable faults.
public enum FaultScorer {
    /// How a matrix fared against one fault.
    public struct FaultResult: Sendable, Hashable, Encodable {
        /// The fault's name, as `--app-fault` takes it.
        public var fault: String
        /// The bug in one sentence (``AppFault/summary``).
        public var summary: String
        /// Whether the catalog can show the fault at all.
        public var applicable: Bool
        /// When not applicable: what the catalog would need.
        public var notApplicableReason: String?
        /// The first case and step that did not pass (`case #step action`), or `nil` when missed or not applicable.
        public var caughtBy: String?
        /// Why that step did not pass.
        public var reason: String?
        /// When missed: the kind of case and the product that would catch it (`a grace-period case on
        /// com.example.plus.monthly`).
        public var wouldCatch: String?
    }

    /// The outcome of scoring a matrix.
    public struct Score: Sendable, Hashable {
        /// The first step that did not pass with the reference app, or `nil` when every step passed.
        public var referenceProblem: EvidenceRecord?
        /// One result per fault, in ``AppFault`` order.
        public var results: [FaultResult]

        /// Whether every step passed with the reference app.
        public var referencePasses: Bool { referenceProblem == nil }
        /// Faults the catalog can show.
        public var applicable: Int { results.filter(\.applicable).count }
        /// Applicable faults some step caught.
        public var caught: Int { results.filter { $0.caughtBy != nil }.count }
        /// `caught * 100 / applicable`, rounded down; 0 when nothing is applicable.
        public var percent: Int { applicable == 0 ? 0 : caught * 100 / applicable }
    }

    /// Makes the environment one scoring run uses: the reference app, with `fault` or without (`nil`).
    public typealias AdapterMaker = @Sendable (_ fault: AppFault?) async throws -> any EnvironmentAdapter

    /// The embedded environment, unsigned: what `matrix score` runs on.
    public static let local: AdapterMaker = { fault in try LocalAdapter(fault: fault, signing: false) }

    /// Scores `matrix` against `faults`.
    ///
    /// - Parameters:
    ///   - jobs: cases run at once within each run.
    ///   - adapter: the environment of each run; ``local`` by default.
    /// - Throws: ``AdapterError`` when the environment cannot start or a run fails unexpectedly.
    public static func score(_ matrix: Matrix, faults: [AppFault] = AppFault.allCases, jobs: Int = 1,
                             adapter: AdapterMaker = local) async throws(AdapterError) -> Score {
        let reference = try await firstProblem(matrix, fault: nil, jobs: jobs, adapter: adapter)
        var results: [FaultResult] = []
        for fault in faults {
            if let reason = fault.notApplicableReason(in: matrix) {
                results.append(FaultResult(fault: fault.rawValue, summary: fault.summary, applicable: false, notApplicableReason: reason))
                continue
            }
            let problem = try await firstProblem(matrix, fault: fault, jobs: jobs, adapter: adapter)
            results.append(FaultResult(fault: fault.rawValue, summary: fault.summary, applicable: true,
                                       caughtBy: problem.map { "\($0.case) #\($0.step) \($0.action.action.rawValue)" },
                                       reason: problem?.reason, wouldCatch: problem == nil ? fault.suggestedCase(in: matrix) : nil))
        }
        return Score(referenceProblem: reference, results: results)
    }

    /// Runs the matrix in memory with `fault` (or the reference app) and returns the first record that is
    /// neither a pass nor a skip.
    ///
    /// - Throws: ``AdapterError`` when the environment cannot start or the run fails unexpectedly.
    public static func firstProblem(_ matrix: Matrix, fault: AppFault?, jobs: Int = 1,
                                    adapter makeAdapter: AdapterMaker = local) async throws(AdapterError) -> EvidenceRecord? {
        let adapter: any EnvironmentAdapter
        do {
            adapter = try await makeAdapter(fault)
        } catch let error as AdapterError {
            throw error
        } catch {
            throw AdapterError("the environment is unavailable: \(error)", environmentUnavailable: true)
        }
        let context = RunContext(runID: "score", environment: adapter.description.name, build: "score", device: "embedded simulator", os: "n/a")
        let sink = FirstProblemSink()
        do {
            _ = try await Runner(matrix: matrix, adapter: adapter, context: context, jobs: jobs).run(into: sink)
        } catch {
            throw AdapterError("scoring failed: \(error)")
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
