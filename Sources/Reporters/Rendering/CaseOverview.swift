import MatrixModel

/// What the reports keep of a case once its records have been rendered: a few hundred bytes, so that a run's
/// reports can be written while its evidence is read one case at a time.
public struct CaseOverview: Sendable, Hashable {
    /// The first step of a case that neither passed nor was skipped.
    public struct Problem: Sendable, Hashable {
        /// The step's 0-based index.
        public var step: Int
        /// The step's action.
        public var action: Action
        /// The step's verdict.
        public var verdict: Verdict
        /// Why, when the record says.
        public var reason: String?

        /// `step 1 (purchase): <reason>`, with `fallback(verdict)` when there is no reason.
        func text(orElse fallback: (Verdict) -> String) -> String {
            "step \(step) (\(action.rawValue)): " + (reason ?? fallback(verdict))
        }
    }

    /// The case's `id`.
    public var id: String
    /// The case's `kind`.
    public var kind: String
    /// The account of the case's first step.
    public var account: AccountRef
    /// The case's worst step verdict.
    public var verdict: Verdict
    /// Step counts by verdict.
    public var counts: VerdictCounts
    /// The first step that neither passed nor was skipped.
    public var firstProblem: Problem?
    /// The first skipped step, with the reason the environment gave (reports show it for a case with no problem).
    public var firstSkip: Problem?
    /// The wall-clock time of its steps added up, ms.
    public var wallMilliseconds: Int64
    /// The case started and did not end: the run was interrupted during it (``RunManifest/unfinishedCases``).
    public var unfinished = false

    /// How reports label the case: its verdict, or INTERRUPTED for an unfinished case (whose steps so far
    /// may all have passed).
    public var label: String {
        unfinished ? Self.unfinishedLabel : StepText.label(verdict)
    }

    /// The label of a case the run stopped during.
    public static let unfinishedLabel = "INTERRUPTED"

    /// The overview of one case's evidence; `unfinished` when the run stopped during it.
    public init(_ matrixCase: CaseEvidence, unfinished: Bool = false) {
        self.init(matrixCase, unfinished: unfinished, stepMilliseconds: matrixCase.records.map(StepText.wallMilliseconds))
    }

    /// The overview, given each record's wall-clock time (``StepText/wallMilliseconds(_:)``), in order.
    init(_ matrixCase: CaseEvidence, unfinished: Bool, stepMilliseconds: [Int64?]) {
        self.unfinished = unfinished
        id = matrixCase.id
        kind = matrixCase.kind
        account = matrixCase.account
        let counts = matrixCase.counts
        self.counts = counts
        verdict = Verdict.summarise(Verdict.allCases.filter { counts[$0] > 0 })
        firstProblem = matrixCase.firstProblem.map {
            Problem(step: $0.step, action: $0.action.action, verdict: $0.verdict, reason: $0.reason)
        }
        firstSkip = matrixCase.records.first { $0.verdict == .skipped }.map {
            Problem(step: $0.step, action: $0.action.action, verdict: $0.verdict, reason: $0.reason)
        }
        wallMilliseconds = stepMilliseconds.reduce(0) { sum, step in step.map { StepText.saturatingSum(sum, $0) } ?? sum }
    }
}
