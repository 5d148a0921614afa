import EvidenceArchive
import EvidenceStore
import FileIO
import Foundation
import MatrixModel
import Reporters

/// The reports `run.json` lists, rendered again from `run.json` and `evidence.jsonl` while verification reads
/// the evidence, to compare with the SHA-256 `run.json` lists for each and with the file present.
///
/// A run's reports render byte for byte from its manifest and its evidence (`matrix report` writes the same
/// bytes), so a report edited and re-hashed in `run.json` no longer has the SHA-256 its rendering gives. Only
/// the reports `run.json` lists are compared: a run lists them when it ends, and a run that has not ended lists
/// none (what it was writing is ``FileFinding/Status/unfinished``).
final class RederivedReports {
    /// One report rendered again, and how it compares.
    struct Comparison {
        /// `junit.xml`, `summary.md` or `report.html`.
        var path: String
        /// The SHA-256 of the report rendered from `run.json` and the evidence, lower-case hex.
        var rendered: String
        /// The SHA-256 `run.json` lists for it.
        var listed: String
        /// The SHA-256 of the file present, when it is present and readable.
        var actual: String?

        /// Whether the rendering is what run.json lists and what the file holds.
        var matches: Bool { rendered == listed && (actual ?? listed) == listed }
    }

    /// The reports to compare, in the order a run writes them.
    private let formats: [ReportFormat]
    /// The reports of the records read so far.
    private let live = LiveReports()

    /// The reports `manifest` lists, in the order a run writes them.
    static func formats(listedIn manifest: RunManifest) -> [ReportFormat] {
        RunDirectory.reportFormats.filter { manifest.files[$0.fileName] != nil }
    }

    /// Renders `formats` again; the cases the run stopped during (``RunManifest/unfinished``) are labelled as the
    /// run labelled them.
    init(_ formats: [ReportFormat], unfinished: Set<String>) {
        self.formats = formats
        live.markUnfinished(unfinished)
    }

    /// Takes the next record of the evidence, in file order.
    func add(_ record: EvidenceRecord) {
        live.add(record)
    }

    /// Renders each listed report of the records taken under `manifest` and compares it.
    ///
    /// Evidence that is not in run order (which `matrix` never writes) is read again whole and grouped, as
    /// `matrix report` does.
    /// - Parameters:
    ///   - findings: the files' findings against run.json, for the SHA-256 of each file present.
    ///   - evidence: `evidence.jsonl`, read again when its records were not in run order.
    /// - Throws: ``VerificationFailure`` `cannotUnpack` when the reports' parts cannot be set aside in a temporary
    ///   directory, `internalError` when SHA-256 cannot be computed.
    func compare(manifest: RunManifest, findings: [FileFinding], evidence: URL) throws(VerificationFailure) -> [Comparison] {
        do {
            let composer: ReportComposer
            var scratch: ScratchDirectory?
            if let composed = live.complete(unfinished: manifest.unfinished) {
                composer = composed
            } else {
                let directory = try ScratchDirectory()
                scratch = directory
                composer = try Reports.compose(formats, evidence: evidence, spoolDirectory: directory.url, unfinished: manifest.unfinished).0
            }
            defer {
                composer.close()
                scratch?.remove()
            }
            // As the run's end rendered them: the counts are the evidence's (``RunDirectory/finish(_:status:endedAt:)``).
            var rendering = manifest
            rendering.counts = composer.counts
            var comparisons: [Comparison] = []
            for format in formats {
                let digest = DigestStream()
                try composer.write(format, manifest: rendering, to: DigestOnlySink(digest))
                guard let rendered = digest.hexDigest() else {
                    throw VerificationFailure(.internalError, "cannot compute the SHA-256 of \(format.fileName) rendered again: libcrypto failed")
                }
                let name = format.fileName
                comparisons.append(Comparison(path: name, rendered: rendered, listed: manifest.files[name] ?? "",
                                              actual: findings.first { $0.path == name }?.actual))
            }
            return comparisons
        } catch let failure as VerificationFailure {
            throw failure
        } catch {
            throw VerificationFailure(.cannotUnpack, "cannot render the run's reports again to compare them with the evidence: \(error)")
        }
    }
}

/// A sink that only hashes: the bytes of a report rendered to be compared, never written.
private final class DigestOnlySink: ReportSink {
    private let digest: DigestStream

    init(_ digest: DigestStream) {
        self.digest = digest
    }

    func write(bytes: UnsafeRawBufferPointer) {
        digest.update(bytes)
    }
}
