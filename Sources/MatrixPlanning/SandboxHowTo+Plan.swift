import MatrixModel

extension SandboxHowTo {
    /// The how-to as a plan entry.
    var entry: RunPlan.HowTo {
        RunPlan.HowTo(capability: rawValue, how: how, source: source)
    }
}
