
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
