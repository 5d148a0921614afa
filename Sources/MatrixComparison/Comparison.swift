import MatrixModel

/// The result of comparing runs: each step whose verdicts differ (or that fails everywhere), classified, plus
/// what could not be compared. Versioned by `compareVersion`; the JSON form of `matrix compare --format json`.
///
/// Build one with ``Comparator/compare(_:)``.
public struct Comparison: Sendable, Hashable, Codable {
    /// The `compareVersion` this version writes.
    public static let currentVersion = 1

    /// One compared run.
    public struct Run: Sendable, Hashable, Codable {
        /// The run's column name in reports: its environment, with `#1`, `#2`… when several runs share one.
        public var label: String
        /// The run directory as the user named it.
        public var path: String
        /// The run's identifier.
        public var runId: String
        /// The environment the run recorded.
        public var environment: String
        /// What the environment stands for in the comparison.
        public var role: EnvironmentRole
        /// The build as given, e.g. `1.4 (212)`.
        public var build: String
        /// The schedule the run modelled, when it recorded one.
        public var clock: String?
        /// The matrix's `name`.
        public var matrixName: String
        /// SHA-256 of the matrix file, lower-case hex.
        public var matrixSHA256: String
        /// `complete`, `interrupted` or `running`.
        public var status: String
        /// Evidence records read.
        public var steps: Int
        /// The selection the run took, in words, when it did not take every case.
        public var selection: String?
        /// How many cases the selection took.
        public var selectedCases: Int?
    }

    /// One run's record of a step.
    public struct Cell: Sendable, Hashable, Codable {
        /// The run's ``Run/label``.
        public var run: String
        /// The run's environment.
        public var environment: String
        /// The step's verdict in that run.
        public var verdict: Verdict
        /// Observed access, sorted; `nil` when nothing was observed.
        public var access: [String]?
        /// Observed renewals since the case started; `nil` when nothing was observed.
        public var renewals: Int?
        /// Why the verdict is not `pass`.
        public var reason: String?
        /// The documented limit that explains this run's verdict, if one does.
        public var divergence: KnownDivergence?
    }

    /// A documented limit cited by a difference, with its source.
    public struct DivergenceNote: Sendable, Hashable, Codable {
        /// Which limit.
        public var id: KnownDivergence
        /// The limit in one sentence.
        public var summary: String
        /// The Apple documentation page; absent where Apple is silent and the limit is this project's reading.
        public var source: String?

        /// The note for `divergence`, with its summary and source.
        public init(_ divergence: KnownDivergence) {
            id = divergence
            summary = divergence.summary
            source = divergence.source
        }
    }

    /// One step that differs between runs.
    public struct Difference: Sendable, Hashable, Codable {
        /// The case's `id`.
        public var `case`: String
        /// The case's `kind`.
        public var kind: String
        /// 0-based step index.
        public var step: Int
        /// The step's action, e.g. `purchase`.
        public var action: String
        /// The step's product, when it has one.
        public var product: String?
        /// Where the difference comes from.
        public var classification: Classification
        /// Why this classification, in one sentence naming the runs.
        public var explanation: String
        /// The documented limits that explain some or all runs' verdicts.
        public var divergences: [DivergenceNote]
        /// Each run that has the step, in run order.
        public var cells: [Cell]
        /// Later steps of the case that are only `blocked` because of this one, not listed separately.
        public var blockedAfter: [Int]
    }

    /// A case, or a step of a case, that some runs have and others do not.
    public struct Unmatched: Sendable, Hashable, Codable {
        /// The case's `id`.
        public var `case`: String
        /// The missing step, or `nil` when the whole case is missing.
        public var step: Int?
        /// Labels of the runs that have it.
        public var presentIn: [String]
        /// Labels of the runs that do not.
        public var missingFrom: [String]
    }

    /// The JSON format's version, ``currentVersion`` when written by this version.
    public var compareVersion: Int
    /// The runs, in the order given.
    public var runs: [Run]
    /// True when the runs ran matrix files with different SHA-256 digests.
    public var matrixVersionsDiffer: Bool
    /// Sentences that must not go unnoticed: different matrix versions, missing cases or steps, runs that did
    /// not complete.
    public var warnings: [String]
    /// Cases present in at least two runs.
    public var casesCompared: Int
    /// Steps present in at least two runs.
    public var stepsCompared: Int
    /// The differences, cases in first-run order and steps in order.
    public var differences: [Difference]
    /// Cases and steps not present in every run.
    public var unmatched: [Unmatched]
    /// Differences per classification, every classification listed.
    public var counts: [String: Int]
    /// Differences that are not a known environment divergence.
    public var unexplained: Int
}
