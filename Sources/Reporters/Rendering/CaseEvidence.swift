import MatrixModel

/// One case's records, as the reports show it.
public struct CaseEvidence: Sendable, Hashable {
    /// The case's `id`.
    public var id: String
    /// The case's `kind`, e.g. `refund`.
    public var kind: String
    /// The account of the case's first step.
    public var account: AccountRef
    /// The case's records in step order.
    public var records: [EvidenceRecord]

    /// The case's worst step verdict.
    public var verdict: Verdict { Verdict.summarise(records.map(\.verdict)) }

    /// Step counts by verdict.
    public var counts: VerdictCounts { VerdictCounts(records.map(\.verdict)) }

    /// The first step that neither passed nor was skipped.
    public var firstProblem: EvidenceRecord? {
        records.first { $0.verdict != .pass && $0.verdict != .skipped }
    }

    /// Groups records by case, cases in the order they first appear (by `seq`), steps by index.
    public static func group(_ records: [EvidenceRecord]) -> [CaseEvidence] {
        var order: [String] = []
        var byCase: [String: [EvidenceRecord]] = [:]
        for record in records.sorted(by: { $0.seq < $1.seq }) {
            if byCase[record.case] == nil { order.append(record.case) }
            byCase[record.case, default: []].append(record)
        }
        return order.compactMap { id in
            guard let records = byCase[id]?.sorted(by: { $0.step < $1.step }), let first = records.first else { return nil }
            return CaseEvidence(id: id, kind: first.kind, account: first.account, records: records)
        }
    }

    /// Why a blocked step was not performed: the record's reason, else the earlier step of the case that failed
    /// or errored (`blocked: step 1 (purchase) failed`).
    public func blockedMessage(for record: EvidenceRecord) -> String {
        if let reason = record.reason, !reason.isEmpty { return reason }
        if let cause = records.first(where: { $0.step < record.step && ($0.verdict == .fail || $0.verdict == .error) }) {
            let what = cause.verdict == .fail ? "failed" : "errored"
            return "blocked: step \(cause.step) (\(cause.action.action.rawValue)) \(what)"
        }
        return "blocked: an earlier step of the case did not complete"
    }
}
