/// The schedule of a matrix run in an environment where a person performs the steps and waits for the store:
/// what to set up, what to do, how long each wait lasts, what cannot be done there, and the wall time in all.
///
/// Made by `RunPlanner` (Adapters) without running anything in the environment; printed by `matrix plan`. The
/// JSON form (`Encodable`) is versioned by ``formatVersion``.
///
/// Cases are grouped by the app-wide settings they need (``AppSettings``): groups run one after another, the
/// lanes (test accounts) of a group in parallel. Within a lane, cases share the lane's test account unless they
/// need accounts of their own (``CasePlan/dedicated``).
public struct RunPlan: Sendable, Hashable, Encodable {
    /// The version of the JSON form; a change that removes, renames or moves a field raises it. Version 2 moved
    /// `lanes` into `groups` and added the cases' `setup`, `teardown`, `accounts`, `dedicated`, `appSettings`,
    /// `group` and `lane`, `clockNote` and `howTo`.
    public static let formatVersion = 2

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
    /// A warning about the clock the tester should read first (Xcode's real-time default), when there is one.
    public var clockNote: String?
    /// Apple's pages the clock's rules come from.
    public var sources: [String]
    /// Every case of the matrix, in matrix order, with its group and lane.
    public var cases: [CasePlan]
    /// How many test accounts (lanes) run cases in parallel.
    public var accounts: Int
    /// The waiting time when one account runs every case one after another, ms.
    public var sequentialMs: Int64
    /// The waiting time over ``accounts`` lanes: the sum over the groups of each group's longest lane, ms.
    public var parallelMs: Int64
    /// The groups, in run order.
    public var groups: [Group]
    /// How to do in this environment what the plan's cases ask for, with Apple's pages.
    public var howTo: [HowTo]

    /// A plan over `cases`; the groups, lanes and totals are computed here (``schedule(_:accounts:settings:)``;
    /// skipped cases run nowhere and cost nothing). `accounts` below 1 counts as 1.
    ///
    /// - Parameter settings: the lines that set a group's app-wide settings, in the environment's words.
    public init(matrix: String, environment: String, clock: String, clockSummary: String, clockNote: String? = nil, sources: [String],
                cases: [CasePlan], accounts: Int, howTo: [HowTo] = [], settings: (AppSettings) -> [String] = { _ in [] }) {
        self.matrix = matrix
        self.environment = environment
        self.clock = clock
        self.clockSummary = clockSummary
        self.clockNote = clockNote
        self.sources = sources
        self.accounts = max(1, accounts)
        self.howTo = howTo
        let (groups, placement) = Self.schedule(cases, accounts: self.accounts, settings: settings)
        var placed = cases
        for index in placed.indices {
            placed[index].group = placement[index]?.group
            placed[index].lane = placement[index]?.lane
        }
        self.cases = placed
        self.groups = groups
        sequentialMs = cases.reduce(0) { $0 + $1.waitMs }
        parallelMs = groups.reduce(0) { $0 + $1.parallelMs }
    }

    /// The waiting time over the accounts in parallel (``parallelMs``) were the cases `excluded` left out: what a
    /// faster clock could still change when some cases wait days of real time whatever the clock.
    public func parallelMs(excluding excluded: Set<String>) -> Int64 {
        let (groups, _) = Self.schedule(cases.filter { !excluded.contains($0.id) }, accounts: accounts, settings: { _ in [] })
        return groups.reduce(0) { $0 + $1.parallelMs }
    }

    /// Which cases each account runs over all groups, in run order, and its waiting time: a summary of
    /// ``groups`` (not encoded).
    public var lanes: [Lane] {
        (1...accounts).map { account in
            var lane = Lane(account: account)
            for group in groups {
                guard let part = group.lanes.first(where: { $0.account == account }) else { continue }
                lane.cases += part.cases
                lane.waitMs += part.waitMs
                for alias in part.sharedAliases where !lane.sharedAliases.contains(alias) { lane.sharedAliases.append(alias) }
            }
            return lane
        }
    }

    private enum CodingKeys: String, CodingKey {
        case formatVersion = "planVersion", matrix, environment, clock, clockSummary, clockNote, sources, accounts, sequentialMs,
             parallelMs, groups, cases, howTo
    }
}
