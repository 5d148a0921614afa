import HarnessCore
import LocalEnvironment
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
///
/// A fault counts as caught only at a step the reference app passes: where the reference fails (or errors, or is
/// blocked), the expectation itself is wrong and would "catch" every fault. When the reference does not pass every
/// step, the score says so first and names those steps.
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
        /// The first case and step that did not pass while the reference passes there (`case #step action`), or
        /// `nil` when missed or not applicable.
        public var caughtBy: String?
        /// Why that step did not pass.
        public var reason: String?
        /// When missed: the kind of case and the product that would catch it (`a grace-period case on
        /// com.example.plus.monthly`).
        public var wouldCatch: String?
    }

    /// The outcome of scoring a matrix.
    public struct Score: Sendable, Hashable {
        /// The steps the reference app failed or errored at (blocked and skipped steps left out), in run order;
        /// empty when every step passed.
        public var referenceProblems: [EvidenceRecord]
        /// One result per fault, in ``AppFault`` order.
        public var results: [FaultResult]

        /// The first step that did not pass with the reference app, or `nil` when every step passed.
        public var referenceProblem: EvidenceRecord? { referenceProblems.first }
        /// Whether every step passed with the reference app.
        public var referencePasses: Bool { referenceProblems.isEmpty }
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
    public static let local: AdapterMaker = { fault in try LocalAdapter(signing: false, app: .reference(faults: fault.map { [$0] } ?? [])) }

    /// Scores `matrix` against `faults`.
    ///
    /// - Parameters:
    ///   - jobs: cases run at once within each run.
    ///   - adapter: the environment of each run; ``local`` by default.
    /// - Throws: ``AdapterError`` when the environment cannot start or a run fails unexpectedly.
    public static func score(_ matrix: Matrix, faults: [AppFault] = AppFault.allCases, jobs: Int = 1,
                             adapter: AdapterMaker = local) async throws(AdapterError) -> Score {
        let reference = ReferenceSink()
        try await run(matrix, fault: nil, jobs: jobs, adapter: adapter, into: reference)
        let (unordered, passed) = await (reference.problems, reference.passed)
        let order = Dictionary(matrix.cases.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        let problems = unordered.sorted { (order[$0.case] ?? 0, $0.step) < (order[$1.case] ?? 0, $1.step) }
        var results: [FaultResult] = []
        for fault in faults {
            if let reason = fault.notApplicableReason(in: matrix) {
                results.append(FaultResult(fault: fault.rawValue, summary: fault.summary, applicable: false, notApplicableReason: reason))
                continue
            }
            let sink = FirstProblemSink(countedAt: passed)
            try await run(matrix, fault: fault, jobs: jobs, adapter: adapter, into: sink)
            let problem = await sink.first
            results.append(FaultResult(fault: fault.rawValue, summary: fault.summary, applicable: true,
                                       caughtBy: problem.map { "\($0.case) #\($0.step) \($0.action.action.rawValue)" },
                                       reason: problem?.reason, wouldCatch: problem == nil ? fault.suggestedCase(in: matrix) : nil))
        }
        return Score(referenceProblems: problems, results: results)
    }

    /// Runs the matrix in memory with `fault` (or the reference app) and returns the first record that is
    /// neither a pass nor a skip.
    ///
    /// - Throws: ``AdapterError`` when the environment cannot start or the run fails unexpectedly.
    public static func firstProblem(_ matrix: Matrix, fault: AppFault?, jobs: Int = 1,
                                    adapter makeAdapter: AdapterMaker = local) async throws(AdapterError) -> EvidenceRecord? {
        let sink = FirstProblemSink(countedAt: nil)
        try await run(matrix, fault: fault, jobs: jobs, adapter: makeAdapter, into: sink)
        return await sink.first
    }

    /// Runs the matrix in memory with `fault` (or the reference app) into `sink`.
    static func run(_ matrix: Matrix, fault: AppFault?, jobs: Int, adapter makeAdapter: AdapterMaker,
                    into sink: any EvidenceSink) async throws(AdapterError) {
        let adapter: any EnvironmentAdapter
        do {
            adapter = try await makeAdapter(fault)
        } catch let error as AdapterError {
            throw error
        } catch {
            throw AdapterError("the environment is unavailable: \(error)", environmentUnavailable: true)
        }
        let context = RunContext(runID: "score", environment: adapter.description.name, build: "score", device: "embedded simulator", os: "n/a")
        do {
            _ = try await Runner(matrix: matrix, adapter: adapter, context: context, jobs: jobs).run(into: sink)
        } catch is FirstProblemSink.Found {
            // The sink has what it needs; the rest of the run could not change the answer.
        } catch {
            throw AdapterError("scoring failed: \(error)")
        }
    }
}

/// A step of a run: its case and index.
struct StepKey: Hashable, Sendable {
    var caseID: String
    var step: Int
}

/// Keeps what the reference run shows: the steps it passed (the only ones a fault can be caught at) and those it
/// failed or errored at.
actor ReferenceSink: EvidenceSink {
    var passed: Set<StepKey> = []
    var problems: [EvidenceRecord] = []

    func append(_ record: EvidenceRecord) async throws {
        switch record.verdict {
        case .pass: passed.insert(StepKey(caseID: record.case, step: record.step))
        case .fail, .error: problems.append(record)
        case .skipped, .blocked: break
        }
    }
}

/// Keeps the first record that did not pass, among the steps the reference passed when `countedAt` is given,
/// and then stops the run: records reach a sink in matrix order, so no later record can come first.
actor FirstProblemSink: EvidenceSink {
    /// Thrown once the first problem is kept, to stop the run; not a failure.
    struct Found: Error {}

    var first: EvidenceRecord?
    let countedAt: Set<StepKey>?

    init(countedAt: Set<StepKey>? = nil) {
        self.countedAt = countedAt
    }

    func append(_ record: EvidenceRecord) async throws {
        guard first == nil, record.verdict != .pass, record.verdict != .skipped else { return }
        if let countedAt, !countedAt.contains(StepKey(caseID: record.case, step: record.step)) { return }
        first = record
        throw Found()
    }
}
