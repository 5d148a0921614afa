
/// How many cases or steps ended with each verdict. Every verdict is always present, zero included.
public struct VerdictCounts: Sendable, Hashable, Codable {
    /// How many passed.
    public var pass = 0
    /// How many failed.
    public var fail = 0
    /// How many errored.
    public var error = 0
    /// How many were skipped.
    public var skipped = 0
    /// How many were blocked.
    public var blocked = 0

    /// All zero.
    public init() {}

    /// Counts `verdicts`.
    public init(_ verdicts: some Sequence<Verdict>) {
        for verdict in verdicts { self[verdict] += 1 }
    }

    /// The count for one verdict.
    public subscript(verdict: Verdict) -> Int {
        get {
            switch verdict {
            case .pass: pass
            case .fail: fail
            case .error: error
            case .skipped: skipped
            case .blocked: blocked
            }
        }
        set {
            switch verdict {
            case .pass: pass = newValue
            case .fail: fail = newValue
            case .error: error = newValue
            case .skipped: skipped = newValue
            case .blocked: blocked = newValue
            }
        }
    }

    /// All counts added up.
    public var total: Int { pass + fail + error + skipped + blocked }

    /// Steps the environment performed and observed: those that passed or failed. A skipped step was not
    /// performed, a blocked one not reached, and an errored one not performed or not observed.
    public var performed: Int { pass + fail }

    /// ``performed`` as a percentage of ``total``, rounded down; 0 when there is nothing.
    public var performedPercent: Int { total == 0 ? 0 : performed * 100 / total }

    /// How much of a run was exercised, for summaries: `127 of 140 steps performed (90 %), 13 skipped`; `every
    /// step performed` when nothing was left out; `no step performed: 140 skipped` when nothing was done.
    public var exercised: String {
        let others = [(skipped, "skipped"), (blocked, "blocked"), (error, "errored")].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        if performed == total { return total == 0 ? "no steps" : "every step performed" }
        if performed == 0 { return "no step performed: " + others.joined(separator: ", ") }
        return "\(performed) of \(total) steps performed (\(performedPercent) %), " + others.joined(separator: ", ")
    }

    /// The share performed, for a line that lists the verdicts beside it: `127 of 140 steps performed (90 %)`;
    /// `no step performed` when nothing was done.
    public var performedShare: String {
        performed == 0 ? "no step performed" : "\(performed) of \(total) steps performed (\(performedPercent) %)"
    }

    /// The counts as words, worst first, zeros left out: `1 fail, 1 blocked, 2 pass`; `none` when all are zero.
    public var phrase: String {
        let parts = Verdict.allCases.sorted().compactMap { verdict in
            self[verdict] == 0 ? nil : "\(self[verdict]) \(verdict.rawValue)"
        }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }
}

/// Counts of a run by verdict, for its cases and its steps.
public struct RunCounts: Sendable, Hashable, Codable {
    /// Each case counts once, with its worst step verdict.
    public var cases: VerdictCounts
    /// Each step counts once.
    public var steps: VerdictCounts

    /// Counts given directly.
    public init(cases: VerdictCounts = .init(), steps: VerdictCounts = .init()) {
        self.cases = cases
        self.steps = steps
    }
}
