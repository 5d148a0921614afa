import Foundation
import Reporters

extension EvidenceReader {
    /// The evidence is not in run order: a case's records are not next to each other, or `seq` goes back.
    /// Evidence that `matrix` writes is always in run order; a file put together by hand may not be.
    typealias NotInRunOrder = CaseCollector.NotInRunOrder

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
