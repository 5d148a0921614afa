import Foundation
import FileIO
import MatrixJSON
import MatrixModel
import Reporters

extension RunDirectory {
    /// Writes `run.json` atomically, with `files` set to the SHA-256 of every other file present now.
    ///
    /// Call it when the run starts (status `running`); ``finish(_:status:endedAt:)`` writes the final one.
    /// - Returns: the manifest as written.
    /// - Throws: ``EvidenceWriteError`` (`cannotHash`, `cannotWrite`, `cannotSync`).
    @discardableResult
    public func writeManifest(_ manifest: RunManifest) throws -> RunManifest {
        try writeManifest(manifest, known: [:])
    }

    /// As ``writeManifest(_:)``, with the digests of files hashed as they were written (see
    /// ``fileDigests(known:)``).
    func writeManifest(_ manifest: RunManifest, known: [String: String]) throws -> RunManifest {
        var manifest = manifest
        manifest.files = try fileDigests(known: known)
        try DurableFile.replace(manifestURL, with: manifest.encoded())
        return manifest
    }

    /// Writes `run.json` for a run that is resumed: `manifest` with no end, status `interrupted` and no unfinished
    /// case until it ends again, its evidence listed as it was when it stopped and its reports not listed (they
    /// are rendered again when it ends; until then `matrix verify` shows them as unfinished). Without it, a resumed
    /// run that is running, or was killed, showed the old end beside evidence that grew, and verify reported it
    /// ALTERED instead of not ended.
    /// - Returns: the manifest as written.
    /// - Throws: ``EvidenceWriteError`` (`cannotHash`, `cannotWrite`, `cannotSync`).
    @discardableResult
    public func writeResumedManifest(_ manifest: RunManifest) throws -> RunManifest {
        var reopened = manifest
        reopened.endedAt = nil
        reopened.status = .interrupted
        reopened.unfinishedCases = nil
        reopened.files = try fileDigests(known: manifest.files)
        for format in Reports.runDirectoryFormats { reopened.files[format.fileName] = nil }
        try DurableFile.replace(manifestURL, with: reopened.encoded())
        return reopened
    }

    /// Creates an empty `evidence.jsonl`, synced to disk.
    ///
    /// - Throws: ``EvidenceWriteError`` with code `cannotWrite` when it exists or cannot be created.
    public func createEmptyEvidence() throws {
        let fd = open(evidenceURL.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw EvidenceWriteError.system(.cannotWrite, path: evidenceURL.path, doing: "create", errno: errno) }
        defer { DurableFile.closeDescriptor(fd) }
        try DurableFile.sync(fd, path: evidenceURL.path)
    }

    /// Reads `run.json`: a regular file, never through a symbolic link, of at most ``InputFile/maximumSize``
    /// bytes.
    ///
    /// - Throws: ``EvidenceReadError`` with code `unreadable`, `notRegularFile` or `unsupportedManifest`.
    public func readManifest() throws -> RunManifest {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(manifestURL.path, followingLinks: false)
        } catch {
            throw EvidenceReadError.opening(manifestURL.path, error)
        }
        return try RunManifest.decode(Data(bytes), path: manifestURL.path)
    }

    /// Reads `evidence.jsonl`; see ``EvidenceReader/read(_:)``.
    public func readEvidence() throws -> (records: [EvidenceRecord], droppedTornLine: Bool) {
        try EvidenceReader.read(evidenceURL)
    }

    /// Ends the run: renders `junit.xml`, `summary.md` and `report.html` from the evidence on disk, writes
    /// them, then writes the final `run.json` with the status, end time, counts and file digests.
    ///
    /// The evidence is read one case at a time and each report is written through a buffer, so memory does not
    /// grow with the run (see ``Reports``); the reports' parts wait in a private directory under `TMPDIR`
    /// meanwhile. Close the ``EvidenceWriter`` first. A torn last evidence line is left out of
    /// the reports and counts.
    /// - Parameters:
    ///   - manifest: the manifest written at the start.
    ///   - status: `complete`, or `interrupted` when the run stopped early.
    ///   - endedAt: the wall-clock end, from the caller's clock.
    /// - Returns: the final manifest.
    /// - Throws: ``EvidenceReadError`` when the evidence cannot be read back; ``EvidenceWriteError`` when a
    ///   report or the manifest cannot be written.
    @discardableResult
    public func finish(_ manifest: RunManifest, status: RunStatus, endedAt: Date) throws -> RunManifest {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let (composer, _) = try Reports.compose(Self.reportFormats, evidence: evidenceURL, spoolDirectory: scratch.url,
                                                unfinished: manifest.unfinished)
        defer { composer.close() }
        return try finish(manifest, status: status, endedAt: endedAt, reports: composer)
    }

    /// The reports a run directory holds, in the order they are written.
    package static let reportFormats = Reports.runDirectoryFormats.sorted { $0.fileName < $1.fileName }

    /// Ends the run with reports already composed from every record of its evidence, and the evidence's
    /// SHA-256 when it was computed as the evidence was written.
    func finish(_ manifest: RunManifest, status: RunStatus, endedAt: Date, reports composer: ReportComposer,
                evidenceDigest: String? = nil) throws -> RunManifest {
        var final = manifest
        final.status = status
        final.endedAt = Timestamp.iso8601(endedAt)
        final.counts = composer.counts
        var known = evidenceDigest.map { [Self.evidenceFileName: $0] } ?? [:]
        for format in Self.reportFormats {
            try Self.checkComponent(format.fileName, what: "file name")
            let digest = DigestStream()
            try DurableFile.replace(url.appendingPathComponent(format.fileName)) { writer in
                try composer.write(format, manifest: final, to: DigestingSink(writer, digest))
            }
            known[format.fileName] = digest.hexDigest()
        }
        return try writeManifest(final, known: known)
    }
}
