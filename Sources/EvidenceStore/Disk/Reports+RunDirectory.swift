import Foundation
import FileIO
import MatrixModel
import Reporters

/// Reports rendered from a run directory's evidence, read one case at a time.
extension Reports {
    /// Re-renders one report from a run directory's `run.json` and `evidence.jsonl`.
    ///
    /// The manifest's counts are recomputed from the evidence read.
    /// - Throws: ``EvidenceReadError`` when the manifest or the evidence cannot be read.
    public static func render(_ format: ReportFormat, from directory: RunDirectory) throws -> Data {
        let sink = MemorySink()
        _ = try write(format, from: directory, manifest: directory.readManifest(), to: sink)
        return Data(sink.bytes)
    }

    /// Renders one report of a run directory to an open file descriptor (standard output, or a file the
    /// caller opened), reading the evidence one case at a time. The descriptor stays open.
    ///
    /// - Parameters:
    ///   - manifest: the run's manifest; its counts are recomputed from the evidence.
    ///   - descriptor: where the report goes; `path` names it in errors.
    /// - Returns: whether a torn last evidence line was left out.
    /// - Throws: ``EvidenceReadError`` when the evidence cannot be read; ``EvidenceWriteError`` when the
    ///   report cannot be written.
    @discardableResult
    public static func write(_ format: ReportFormat, from directory: RunDirectory, manifest: RunManifest,
                             toDescriptor descriptor: Int32, path: String) throws -> Bool {
        let output = BufferedFileWriter(descriptor: descriptor, path: path)
        let torn = try write(format, from: directory, manifest: manifest, to: output)
        try output.flush()
        return torn
    }

    static func write(_ format: ReportFormat, from directory: RunDirectory, manifest: RunManifest, to sink: ReportSink) throws -> Bool {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let (composer, torn) = try compose([format], evidence: directory.evidenceURL, spoolDirectory: scratch.url,
                                           unfinished: manifest.unfinished)
        defer { composer.close() }
        var manifest = manifest
        manifest.counts = composer.counts
        try composer.write(format, manifest: manifest, to: sink)
        return torn
    }

    /// Reads the evidence at `url` one case at a time into a new composer; evidence that is not in run order
    /// is read whole and grouped instead.
    ///
    /// - Returns: the composer, and whether a torn last line was left out.
    /// - Throws: ``EvidenceReadError`` when the evidence cannot be read; ``EvidenceWriteError`` when a spool
    ///   file cannot be written.
    package static func compose(_ formats: [ReportFormat], evidence url: URL, spoolDirectory: URL?, unfinished: Set<String> = []) throws
        -> (ReportComposer, Bool) {
        let composer = try ReportComposer(formats: formats, spoolDirectory: spoolDirectory)
        composer.unfinished = unfinished
        do {
            let torn = try EvidenceReader.forEachCase(in: url) { try composer.add($0) }
            return (composer, torn)
        } catch is EvidenceReader.NotInRunOrder {
            composer.close()
            let regrouped = try ReportComposer(formats: formats, spoolDirectory: spoolDirectory)
            regrouped.unfinished = unfinished
            let (records, torn) = try EvidenceReader.read(url)
            for matrixCase in CaseEvidence.group(records) { try regrouped.add(matrixCase) }
            return (regrouped, torn)
        } catch {
            composer.close()
            throw error
        }
    }
}
