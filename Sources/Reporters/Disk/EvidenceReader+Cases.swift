import Foundation
import MatrixCore

extension EvidenceReader {
    /// The evidence is not in run order: a case's records are not next to each other, or `seq` goes back.
    /// Evidence that `matrix` writes is always in run order; a file put together by hand may not be.
    struct NotInRunOrder: Error {}

    /// Calls `body` with each case's records in turn, steps in order, holding one case in memory at a time.
    ///
    /// The cases come as ``CaseEvidence/group(_:)`` would give them for the whole file, provided the evidence
    /// is in run order (what `matrix` writes: `seq` rising, each case's records together).
    /// - Returns: whether a torn last line was dropped.
    /// - Throws: ``NotInRunOrder`` when the evidence is not in run order (``CaseEvidence/group(_:)`` then
    ///   gives the cases); ``EvidenceReadError`` as ``read(_:)`` does; whatever `body` throws.
    static func forEachCase(in url: URL, _ body: (CaseEvidence) throws -> Void) throws -> Bool {
        var collector = CaseCollector()
        let torn = try forEachRecord(in: url) { record in
            if let finished = try collector.add(record) { try body(finished) }
        }
        if let last = collector.finish() { try body(last) }
        return torn
    }
}

/// Gathers records in run order into cases, one case at a time.
struct CaseCollector {
    private var current: [EvidenceRecord] = []
    private var finished = Set<String>()
    private var lastSeq = Int.min

    /// Takes the next record.
    ///
    /// - Returns: the case before it, when `record` starts a new case.
    /// - Throws: ``EvidenceReader/NotInRunOrder`` when `seq` does not rise or the record's case ended earlier.
    mutating func add(_ record: EvidenceRecord) throws -> CaseEvidence? {
        guard record.seq > lastSeq else { throw EvidenceReader.NotInRunOrder() }
        lastSeq = record.seq
        var done: CaseEvidence?
        if let first = current.first, first.case != record.case { done = finish() }
        if current.isEmpty, finished.contains(record.case) { throw EvidenceReader.NotInRunOrder() }
        current.append(record)
        return done
    }

    /// The case in progress, complete: its records in step order. Call it after the last record.
    mutating func finish() -> CaseEvidence? {
        let records = current.sorted { $0.step < $1.step }
        current = []
        guard let first = records.first else { return nil }
        finished.insert(first.case)
        return CaseEvidence(id: first.case, kind: first.kind, account: first.account, records: records)
    }
}
