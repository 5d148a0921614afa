import MatrixModel

/// Receives evidence records in matrix order and keeps them.
///
/// A runner hands each batch of records (a step's, or a batch of a case's) first to ``prepare(_:)``, on the job
/// that produced it, and then, in matrix order, to `append(_ prepared:)`: work that does not depend on the
/// order (encoding the records) runs in parallel, and only the writing is serial.
public protocol EvidenceSink: Sendable {
    /// Appends one record; when this returns it must survive a crash of the process (it may reach the disk
    /// shortly after; see the sink's own documentation).
    ///
    /// - Throws: when the record cannot be written; the run stops (exit 74) with what was written kept.
    func append(_ record: EvidenceRecord) async throws

    /// Readies numbered records for writing, wherever they were produced and in any order.
    func prepare(_ records: [EvidenceRecord]) -> PreparedEvidence

    /// Appends prepared records, in order, as `append(_ record:)` appends each.
    ///
    /// - Throws: as `append(_ record:)`; records before the one that failed may have been kept.
    func append(_ prepared: PreparedEvidence) async throws
}

/// Records readied by an ``EvidenceSink`` for writing.
public struct PreparedEvidence: Sendable {
    /// The records, as the sink keeps them for progress and reports: a sink that has encoded them may leave out
    /// what only the encoding needs (signed data).
    public var records: [EvidenceRecord]
    /// The sink's encoding of the records, if it made one; only that sink's `prepare(_:)` sets it.
    public var encoded: [UInt8]?

    public init(records: [EvidenceRecord], encoded: [UInt8]? = nil) {
        self.records = records
        self.encoded = encoded
    }
}

extension EvidenceSink {
    /// The records as they are, for a sink that does nothing ahead of writing.
    public func prepare(_ records: [EvidenceRecord]) -> PreparedEvidence {
        PreparedEvidence(records: records)
    }

    /// Appends the records one at a time.
    public func append(_ prepared: PreparedEvidence) async throws {
        for record in prepared.records { try await append(record) }
    }
}
