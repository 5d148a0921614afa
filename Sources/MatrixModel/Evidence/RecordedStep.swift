/// A step already in a run's evidence, as much of it as a resumed run needs: which step, its verdict, and why
/// when it did not pass. A few dozen bytes, where the record can take kilobytes of signed data.
public struct RecordedStep: Sendable, Hashable {
    /// The step's 0-based index in its case.
    public var step: Int
    /// The step's action.
    public var action: Action
    /// The step's verdict.
    public var verdict: Verdict
    /// Why the verdict is not `pass`; `nil` for a step that passed.
    public var reason: String?
    /// The documented environment limit a skipped step names (``EvidenceRecord/environmentLimit``).
    public var environmentLimit: String?
    /// Whether it passed with none of its expectation observed (``EvidenceRecord/passedWithNothingObserved``).
    public var passedWithNothingObserved: Bool

    /// A recorded step given field by field.
    public init(step: Int, action: Action, verdict: Verdict, reason: String? = nil, environmentLimit: String? = nil,
                passedWithNothingObserved: Bool = false) {
        self.step = step
        self.action = action
        self.verdict = verdict
        self.reason = verdict == .pass ? nil : reason
        self.environmentLimit = verdict == .skipped ? environmentLimit : nil
        self.passedWithNothingObserved = verdict == .pass && passedWithNothingObserved
    }

    /// What a resumed run keeps of `record`.
    public init(_ record: EvidenceRecord) {
        self.init(step: record.step, action: record.action.action, verdict: record.verdict, reason: record.reason,
                  environmentLimit: record.environmentLimit, passedWithNothingObserved: record.passedWithNothingObserved)
    }
}
