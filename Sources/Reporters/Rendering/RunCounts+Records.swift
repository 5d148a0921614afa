import MatrixModel

extension RunCounts {
    /// The counts of the cases and steps in `records`.
    public init(records: [EvidenceRecord]) {
        self.init(cases: VerdictCounts(CaseEvidence.group(records).map(\.verdict)),
                  steps: VerdictCounts(records.map(\.verdict)))
    }
}
