/// The schedule of a matrix run in an environment where a person performs the steps and waits for the store:
/// what to do, how long each wait lasts, what cannot be done there, and the wall time in all.
///
/// Made by `RunPlanner` (StoreSimulator) without running anything in the environment; printed by
/// `matrix plan`. The JSON form (`Encodable`) is versioned by ``formatVersion``.
public struct RunPlan: Sendable, Hashable, Encodable {
    /// The version of the JSON form; a change that removes or renames a field raises it.
    public static let formatVersion = 1

    /// One step as a person performs it.
    public struct StepPlan: Sendable, Hashable, Encodable {
        /// The step's 0-based index in its case, as evidence numbers it.
        public var index: Int
        /// The step's action, e.g. `renew`.
        public var action: String
        /// What the person does, one line: "buy Plus Monthly (com.example.plus.monthly)".
        public var instruction: String
        /// What to check afterwards, one line, when the step expects something a person can see.
        public var check: String?
        /// How long the person waits for the store, ms (0 for steps that do not wait).
        public var waitMs: Int64
        /// ``waitMs`` in words, e.g. "5 minutes"; `nil` when there is no wait.
        public var wait: String?
        /// Why the step cannot be performed in this environment (an environment limit), when it cannot.
        public var skipped: String?
        /// Whether the wait is real time in every environment (`advanceTime by`), not an accelerated period.
        public var realTime: Bool

        /// A step that waits `waitMs` (0 by default) and is performed unless `skipped` says why not.
        public init(index: Int, action: String, instruction: String, check: String? = nil, waitMs: Int64 = 0, wait: String? = nil,
                    skipped: String? = nil, realTime: Bool = false) {
            self.index = index
            self.action = action
            self.instruction = instruction
            self.check = check
            self.waitMs = waitMs
            self.wait = wait
            self.skipped = skipped
            self.realTime = realTime
        }
    }

    /// One case and its steps.
    public struct CasePlan: Sendable, Hashable, Encodable {
        /// The case's `id`, `kind` and acting `account`, as in the matrix.
        public var id: String
        /// See ``id``.
        public var kind: String
        /// See ``id``.
        public var account: String
        /// The clock the case runs on, e.g. `sandbox:5`.
        public var clock: String
        /// Why the whole case cannot run in this environment (its `store.clock` is another environment's).
        public var skipped: String?
        /// A setting the tester must make for this case, e.g. the Sandbox account's renewal rate.
        public var setup: [String]
        /// Every step, in order (skipped ones included, with their reason).
        public var steps: [StepPlan]

        /// A case and its steps; ``waitMs`` is computed from the steps.
        public init(id: String, kind: String, account: String, clock: String, skipped: String? = nil, setup: [String] = [],
                    steps: [StepPlan]) {
            self.id = id
            self.kind = kind
            self.account = account
            self.clock = clock
            self.skipped = skipped
            self.setup = setup
            self.steps = steps
        }

        /// The case's waiting time, ms: the sum of its steps' waits.
        public var waitMs: Int64 { steps.reduce(0) { $0 + $1.waitMs } }

        private enum CodingKeys: String, CodingKey {
            case id, kind, account, clock, skipped, setup, waitMs, steps
        }

        /// Encodes the case with its ``waitMs``.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(kind, forKey: .kind)
            try container.encode(account, forKey: .account)
            try container.encode(clock, forKey: .clock)
            try container.encodeIfPresent(skipped, forKey: .skipped)
            try container.encode(setup, forKey: .setup)
            try container.encode(waitMs, forKey: .waitMs)
            try container.encode(steps, forKey: .steps)
        }
    }

    /// The cases one test account runs, one after another.
    public struct Lane: Sendable, Hashable, Encodable {
        /// 1-based account number.
        public var account: Int
        /// Case IDs in the order the account runs them.
        public var cases: [String]
        /// The lane's waiting time, ms: the sum of its cases'.
        public var waitMs: Int64
    }

    /// ``RunPlan/formatVersion``, written as `planVersion`.
    public var formatVersion = RunPlan.formatVersion
    /// The matrix as named on the command line.
    public var matrix: String
    /// `sandbox`, `testflight` or `xcode`.
    public var environment: String
    /// The environment's clock, e.g. `sandbox:5`.
    public var clock: String
    /// The clock in words, e.g. "Sandbox, monthly renewal every 5 minutes (default)".
    public var clockSummary: String
    /// Apple's pages the clock's rules come from.
    public var sources: [String]
    /// Every case of the matrix, in matrix order.
    public var cases: [CasePlan]
    /// How many test accounts share the cases.
    public var accounts: Int
    /// The waiting time when one account runs every case one after another, ms.
    public var sequentialMs: Int64
    /// The waiting time when ``accounts`` accounts run the cases in parallel (the longest lane), ms.
    public var parallelMs: Int64
    /// Which cases each account runs.
    public var lanes: [Lane]

    /// A plan over `cases`; the totals and the lanes (``lanes(_:accounts:)``, skipped cases left out) are
    /// computed here. `accounts` below 1 counts as 1.
    public init(matrix: String, environment: String, clock: String, clockSummary: String, sources: [String], cases: [CasePlan],
                accounts: Int) {
        self.matrix = matrix
        self.environment = environment
        self.clock = clock
        self.clockSummary = clockSummary
        self.sources = sources
        self.cases = cases
        self.accounts = max(1, accounts)
        sequentialMs = cases.reduce(0) { $0 + $1.waitMs }
        lanes = Self.lanes(cases.filter { $0.skipped == nil }.map { ($0.id, $0.waitMs) }, accounts: self.accounts)
        parallelMs = lanes.map(\.waitMs).max() ?? 0
    }

    /// Spreads jobs over `accounts` lanes, longest first, each onto the lane that is free soonest (lowest
    /// number on a tie): the longest-processing-time rule, within 4/3 of the best possible longest lane.
    /// Jobs of equal length keep their order.
    public static func lanes(_ jobs: [(id: String, ms: Int64)], accounts: Int) -> [Lane] {
        var lanes = (1...max(1, accounts)).map { Lane(account: $0, cases: [], waitMs: 0) }
        let order = jobs.enumerated().sorted { ($0.element.ms, -$0.offset) > ($1.element.ms, -$1.offset) }
        for (_, job) in order {
            guard let index = lanes.indices.min(by: { (lanes[$0].waitMs, $0) < (lanes[$1].waitMs, $1) }) else { continue }
            lanes[index].cases.append(job.id)
            lanes[index].waitMs += job.ms
        }
        return lanes
    }

    private enum CodingKeys: String, CodingKey {
        case formatVersion = "planVersion", matrix, environment, clock, clockSummary, sources, cases, accounts, sequentialMs, parallelMs, lanes
    }
}
