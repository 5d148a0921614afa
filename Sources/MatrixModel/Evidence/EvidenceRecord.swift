/// How a step went.
public enum Verdict: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// Everything expected was observed.
    case pass
    /// Something observed differs from what was expected.
    case fail
    /// The environment could not perform the step or observe its outcome.
    case error
    /// The environment does not support the step; the reason says why.
    case skipped
    /// An earlier step of the case failed or errored, so this one was not performed.
    case blocked

    /// Severity order for summarising a case: fail and error outrank blocked, skipped and pass.
    private var rank: Int {
        switch self {
        case .error: 0
        case .fail: 1
        case .blocked: 2
        case .skipped: 3
        case .pass: 4
        }
    }

    public static func < (lhs: Verdict, rhs: Verdict) -> Bool { lhs.rank < rhs.rank }

    /// The verdict of a whole case: its worst step verdict (`pass` for no steps).
    public static func summarise(_ verdicts: some Sequence<Verdict>) -> Verdict {
        verdicts.min() ?? .pass
    }
}

/// The account a record's step acted on: its alias and described state, never a real e-mail address.
public struct AccountRef: Sendable, Hashable, Codable {
    public var alias: String
    public var state: String
    /// A salted SHA-256 of the real account identifier, in guided runs.
    public var hash: String?

    public init(alias: String, state: String, hash: String? = nil) {
        self.alias = alias
        self.state = state
        self.hash = hash
    }
}

/// One step's evidence: what was expected, what was observed, and the verdict, with the run's metadata.
///
/// One JSON object per line of `evidence.jsonl`, appended and flushed as each step ends.
public struct EvidenceRecord: Sendable, Hashable, Codable {
    /// The run's identifier.
    public var run: String
    /// 1-based position in the run's evidence, in matrix order.
    public var seq: Int
    public var environment: String
    public var build: String
    public var device: String
    public var os: String
    public var account: AccountRef
    /// The case's `id`.
    public var `case`: String
    public var kind: String
    /// 0-based index of the step in its case.
    public var step: Int
    /// The step as written in the matrix, expectation excluded.
    public var action: Step
    /// The step's product, when it has one (duplicated from `action` for easy filtering).
    public var product: String?
    public var expected: Expectation?
    /// `nil` when nothing was observed (`blocked`, `skipped`, or an `error` before observing).
    public var observed: Observation?
    public var verdict: Verdict
    /// Why the verdict is not `pass`: the differences, the error, or the skip reason.
    public var reason: String?
    /// For a step skipped because the environment cannot perform it, and for the rest of its case: the
    /// documented limit, a ``GuidedLimit`` raw value (`askToBuyAnswer`, `renewalLimit`, …), kept as written so that
    /// a value a later version adds survives a round trip. `matrix compare` explains such skips with it.
    public var environmentLimit: String?
    /// Wall-clock start and end, ISO 8601 with milliseconds, UTC.
    public var wallStart: String
    public var wallEnd: String
    /// The store's clock after the step, ms since 1970.
    public var storeTime: Int64?
    /// How long the step would take in wall time in the environment the run models, ms.
    public var modelledWallTimeMs: Int64?
    /// The clock the case ran on (`real`, `xcode:13`, `sandbox:5`, `testflight`), when the environment models one.
    public var clock: String?
    /// The known bug the reference app ran with (`--app-fault`): this evidence is of a deliberately faulty app.
    public var appFault: String?

    public init(run: String, seq: Int, environment: String, build: String, device: String, os: String, account: AccountRef,
                case caseID: String, kind: String, step: Int, action: Step, product: String?, expected: Expectation?,
                observed: Observation?, verdict: Verdict, reason: String?, wallStart: String, wallEnd: String,
                storeTime: Int64?, modelledWallTimeMs: Int64? = nil, clock: String? = nil, appFault: String? = nil,
                environmentLimit: String? = nil) {
        self.run = run
        self.seq = seq
        self.environment = environment
        self.build = build
        self.device = device
        self.os = os
        self.account = account
        self.case = caseID
        self.kind = kind
        self.step = step
        self.action = action
        self.product = product
        self.expected = expected
        self.observed = observed
        self.verdict = verdict
        self.reason = reason
        self.wallStart = wallStart
        self.wallEnd = wallEnd
        self.storeTime = storeTime
        self.modelledWallTimeMs = modelledWallTimeMs
        self.clock = clock
        self.appFault = appFault
        self.environmentLimit = environmentLimit
    }
}
