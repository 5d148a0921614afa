import MatrixModel

/// How much of a run must be performed for it to count as passing, beside every performed step passing: a run
/// whose environment skipped everything has tested nothing, and is not green.
///
/// The default refuses only a run in which no step was performed; `--fail-on-skip` refuses any skipped step,
/// `--min-performed PERCENT` a run that performed less than that share of its steps (docs/matrix-format.md,
/// "What counts as passing").
public struct ExercisePolicy: Sendable, Hashable {
    /// Any skipped step makes the run fail.
    public var failOnSkip: Bool
    /// The least share of steps, in percent, that must be performed (passed or failed); `nil` asks only for one.
    public var minimumPerformedPercent: Int?

    /// The default: at least one step performed.
    public init(failOnSkip: Bool = false, minimumPerformedPercent: Int? = nil) {
        self.failOnSkip = failOnSkip
        self.minimumPerformedPercent = minimumPerformedPercent
    }

    /// Why `steps` fall short of the policy, in a sentence naming the option that decides it; `nil` when they
    /// meet it. A run with no steps at all (an interrupted run that recorded nothing) is left to its other checks.
    public func shortfall(_ steps: VerdictCounts) -> String? {
        guard steps.total > 0 else { return nil }
        if failOnSkip, steps.skipped > 0 {
            return "\(steps.skipped) step\(steps.skipped == 1 ? " was" : "s were") skipped and --fail-on-skip is on"
        }
        if let minimum = minimumPerformedPercent, steps.performedPercent < minimum {
            return "\(steps.performed) of \(steps.total) steps were performed (\(steps.performedPercent) %), fewer than --min-performed \(minimum)"
        }
        if steps.performed == 0 {
            return "no step was performed (\(steps.exercised)): a run that tests nothing does not pass; "
                + "see why each step was skipped in the report"
        }
        return nil
    }
}

extension RunSummary {
    /// The step counts as ``VerdictCounts``.
    public var stepCounts: VerdictCounts {
        var counts = VerdictCounts()
        for (verdict, count) in steps { counts[verdict] = count }
        return counts
    }
}
