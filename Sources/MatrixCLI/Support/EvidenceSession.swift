import Foundation
import EvidenceStore
import FileIO
import MatrixModel

/// A run's evidence on disk from start to finish: the run directory, the manifest written at the start, and the
/// writer that appends each record as its step ends.
struct EvidenceSession {
    let directory: RunDirectory
    let writer: EvidenceWriter
    let manifest: RunManifest

    /// Creates the run directory, `run.json` (status `interrupted` until the run ends) and an empty
    /// `evidence.jsonl`, under `runID` when one was given (`--run-id`), else under a fresh id, drawn again when
    /// another run sharing `root` takes it at the same moment; the session's manifest has the id used.
    /// - Throws: ``CommandFailure`` with exit 74 when any of it cannot be written, or the given run id is taken.
    static func start(root: URL, build: String, manifest: RunManifest, runID: String?) throws(CommandFailure) -> EvidenceSession {
        do {
            var written = manifest
            let directory = try RunDirectory.createNew(root: root, environment: manifest.environment, build: build, runID: runID) { staging, id in
                var identified = manifest
                identified.runId = id
                try staging.createEmptyEvidence()
                written = try staging.writeManifest(identified)
            }
            let writer = try EvidenceWriter(directory: directory)
            return EvidenceSession(directory: directory, writer: writer, manifest: written)
        } catch {
            throw CommandFailure("cannot write evidence: \(error)", code: .ioError)
        }
    }

    /// The `run.json` of a run to resume, read without touching its evidence.
    /// - Throws: ``CommandFailure``: 66 when the directory does not exist, 65 when it is not a run.
    static func manifest(of directory: RunDirectory) throws(CommandFailure) -> RunManifest {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandFailure("cannot resume \(directory.url.path): no such run directory", code: .noInput)
        }
        do {
            return try directory.readManifest()
        } catch {
            throw CommandFailure("cannot resume \(directory.url.path): \(error)", code: .dataError)
        }
    }

    /// Reopens an interrupted run whose `manifest` was read with ``manifest(of:)``: its evidence for appending,
    /// after cutting a torn last line. Call it once every reason to refuse the run has been checked, so that a
    /// refused run is left as it was.
    /// - Throws: ``CommandFailure``: 65 when the evidence is not a run's, 74 when it cannot be reopened for writing.
    static func resume(_ directory: RunDirectory, manifest: RunManifest) throws(CommandFailure)
        -> (session: EvidenceSession, recorded: RecordedEvidence, droppedTornLine: Bool) {
        do {
            let (writer, recorded, torn) = try EvidenceWriter.resuming(directory: directory)
            // From here the run has not ended again, whatever happens to this process.
            let reopened = try directory.writeResumedManifest(manifest)
            return (EvidenceSession(directory: directory, writer: writer, manifest: reopened), recorded, torn)
        } catch let error as EvidenceReadError {
            throw CommandFailure("cannot resume \(directory.url.path): \(error)", code: .dataError)
        } catch {
            throw CommandFailure("cannot resume \(directory.url.path): \(error)", code: .ioError)
        }
    }

    /// Flushes and closes the evidence, renders the reports and writes the final `run.json`.
    /// - Throws: ``CommandFailure`` with exit 74 when the evidence cannot be flushed to disk, or the reports or
    ///   the manifest cannot be written.
    /// - Parameter unfinishedCase: the case that started and did not end, in an interrupted run.
    func finish(interrupted: Bool, unfinishedCase: String? = nil) async throws(CommandFailure) -> RunDirectory {
        do {
            try await writer.sync()
        } catch {
            await writer.close()
            throw CommandFailure("cannot write evidence: \(error)", hint: "Evidence written so far is kept in \(directory.url.path)", code: .ioError)
        }
        do {
            var manifest = manifest
            manifest.unfinishedCases = interrupted ? unfinishedCase.map { [$0] } : nil
            try await writer.finish(manifest, status: interrupted ? .interrupted : .complete, endedAt: Date())
        } catch {
            throw CommandFailure("cannot finish the run: \(error)",
                                 hint: "The evidence is kept in \(directory.url.path); once the problem is fixed, "
                                     + "`matrix run --resume \(directory.url.path)` writes its reports", code: .ioError)
        }
        return directory
    }
}
