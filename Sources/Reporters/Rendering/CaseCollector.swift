import MatrixModel

/// Gathers records in run order into cases, one case at a time.
package struct CaseCollector {
    /// Records that are not in run order: `seq` does not rise, or a case continues after another began.
    package struct NotInRunOrder: Error {}

    package init() {}

    private var current: [EvidenceRecord] = []
    private var finished = Set<String>()
    private var lastSeq = Int.min

    /// Takes the next record.
    ///
    /// - Returns: the case before it, when `record` starts a new case.
    /// - Throws: ``NotInRunOrder`` when `seq` does not rise or the record's case ended earlier.
    package mutating func add(_ record: EvidenceRecord) throws -> CaseEvidence? {
        guard record.seq > lastSeq else { throw NotInRunOrder() }
        lastSeq = record.seq
        var done: CaseEvidence?
        if let first = current.first, first.case != record.case { done = finish() }
        if current.isEmpty, finished.contains(record.case) { throw NotInRunOrder() }
        current.append(record)
        return done
    }

    /// The case in progress, complete: its records in step order. Call it after the last record.
    package mutating func finish() -> CaseEvidence? {
        // Records come in step order but for a resumed or merged run's: sorting only then spares a copy of each.
        var records: [EvidenceRecord] = []
        swap(&records, &current)
        if !records.indices.dropFirst().allSatisfy({ records[$0 - 1].step <= records[$0].step }) {
            records.sort { $0.step < $1.step }
        }
        guard let first = records.first else { return nil }
        finished.insert(first.case)
        return CaseEvidence(id: first.case, kind: first.kind, account: first.account, records: records)
    }
}
