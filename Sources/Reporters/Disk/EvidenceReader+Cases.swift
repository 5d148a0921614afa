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
        var current: [EvidenceRecord] = []
        var finished = Set<String>()
        var lastSeq = Int.min
        func flush() throws {
            let records = current.sorted { $0.step < $1.step }
            current = []
            guard let first = records.first else { return }
            finished.insert(first.case)
            try body(CaseEvidence(id: first.case, kind: first.kind, account: first.account, records: records))
        }
        let torn = try forEachRecord(in: url) { record in
            guard record.seq > lastSeq else { throw NotInRunOrder() }
            lastSeq = record.seq
            if let first = current.first, first.case != record.case { try flush() }
            if current.isEmpty, finished.contains(record.case) { throw NotInRunOrder() }
            current.append(record)
        }
        try flush()
        return torn
    }
}
