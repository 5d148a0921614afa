import MatrixModel

/// What a run reports while it goes, for progress output. Events arrive in matrix order.
public enum RunEvent: Sendable {
    /// A step's record once written, as the sink keeps it (``PreparedEvidence/records``).
    case stepFinished(EvidenceRecord)
    case caseFinished(CaseResult)
}

/// A case's outcome.
public struct CaseResult: Sendable, Hashable, Codable {
    public var id: String
    public var kind: String
    public var account: String
    public var verdict: Verdict
    /// Step verdict counts.
    public var steps: [Verdict: Int]
    /// The first step that did not pass, and why.
    public var firstProblem: String?
    /// That step's index in the case (from 0), to find it in the matrix.
    public var firstProblemStep: Int?
}

/// Counts of a run by verdict.
public struct RunSummary: Sendable, Hashable, Codable {
    public var cases: [Verdict: Int] = [:]
    public var steps: [Verdict: Int] = [:]
    public var caseResults: [CaseResult] = []
    /// Passing steps whose matrix step has no expectation: they passed because nothing contradicted them
    /// (observers agreed, the action succeeded), not because an expected value was seen.
    public var passesWithoutExpectation = 0
    /// Steps that passed with an expectation none of whose fields the environment observed: nothing was judged.
    public var passesWithNothingObserved = 0
    /// True when the run stopped before every case ended (Ctrl-C, a signal).
    public var interrupted = false
    /// The case that started and did not end when the run stopped, if one did: its records are the first of its
    /// steps, and it is written last.
    public var unfinishedCase: String?

    public init() {}

    /// Whether every recorded step passed or was skipped, and nothing was interrupted.
    public var allPassed: Bool {
        !interrupted && (steps[.fail] ?? 0) == 0 && (steps[.error] ?? 0) == 0 && (steps[.blocked] ?? 0) == 0
    }
}
