import FileIO
import MatrixModel
import Reporters

/// A run's reports composed from its records as they are written, so that the run ends without reading its
/// evidence back. Owned by the ``EvidenceWriter`` of a new run.
///
/// Any problem (evidence out of run order, a spool file that cannot be written) makes it give up quietly:
/// the run's end then composes the reports from the evidence on disk, as `matrix report` does.
package final class LiveReports {
    private var composer: ReportComposer?
    private var collector = CaseCollector()

    /// Reports whose parts are spooled in a ``ScratchDirectory``, which lives as long as the composer.
    package init() {
        composer = (try? ScratchDirectory()).flatMap {
            try? ReportComposer(formats: RunDirectory.reportFormats, spoolDirectory: $0.url, keeping: $0)
        }
    }

    deinit {
        composer?.close()
    }

    /// Takes the next record written to the evidence.
    package func add(_ record: EvidenceRecord) {
        guard let composer else { return }
        do {
            if let finished = try collector.add(record) { try composer.add(finished) }
        } catch {
            abandon()
        }
    }

    /// Cases known to be unfinished before their records come (a merge's slices that stopped during them).
    package func markUnfinished(_ ids: Set<String>) {
        composer?.unfinished.formUnion(ids)
    }

    /// Gives up; the run's end reads the evidence back instead.
    package func abandon() {
        composer?.close()
        composer = nil
    }

    /// The reports of every record taken, or `nil` after giving up. The caller closes the composer.
    ///
    /// - Parameter unfinished: cases that started and did not end (an interrupted run's last case).
    package func complete(unfinished: Set<String> = []) -> ReportComposer? {
        guard let composer else { return nil }
        // In a run, only the case still being collected can be unfinished: every earlier one ended before the next
        // began (a merge marks its slices' unfinished cases before their records come, ``markUnfinished(_:)``).
        composer.unfinished.formUnion(unfinished)
        do {
            if let last = collector.finish() { try composer.add(last) }
        } catch {
            abandon()
            return nil
        }
        self.composer = nil
        return composer
    }
}
