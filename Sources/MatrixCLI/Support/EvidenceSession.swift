import Foundation
import MatrixCore
import Reporters

/// A run's evidence on disk from start to finish: the run directory, the manifest written at the start, and the
/// writer that appends each record as its step ends.
struct EvidenceSession {
    let directory: RunDirectory
    let writer: EvidenceWriter
    let manifest: RunManifest

    /// Creates the run directory, `run.json` (status `running`) and an empty `evidence.jsonl`.
    /// - Throws: ``CommandFailure`` with exit 74 when any of it cannot be written.
    static func start(root: URL, buildSlugSource: String, context: RunContext, matrix: Matrix, matrixPath: String,
                      matrixBytes: [UInt8], clock: String?) throws(CommandFailure) -> EvidenceSession {
        do {
            let directory = try RunDirectory.create(root: root, environment: context.environment, build: buildSlugSource,
                                                    runID: context.runID)
            let writer = try EvidenceWriter(directory: directory)
            let manifest = RunManifest(
                toolVersion: MatrixCommand.version, context: context,
                matrix: MatrixReference(path: matrixPath, contents: Data(matrixBytes), name: matrix.name),
                clock: clock, accounts: RunManifest.accounts(of: matrix), startedAt: Date())
            return EvidenceSession(directory: directory, writer: writer, manifest: try directory.writeManifest(manifest))
        } catch {
            throw CommandFailure("cannot write evidence: \(error)", code: .ioError)
        }
    }

    /// Closes the evidence, renders the reports and writes the final `run.json`.
    /// - Throws: ``CommandFailure`` with exit 74 when the reports or the manifest cannot be written (the
    ///   evidence itself is already on disk).
    func finish(interrupted: Bool) async throws(CommandFailure) -> RunDirectory {
        await writer.close()
        do {
            try directory.finish(manifest, status: interrupted ? .interrupted : .complete, endedAt: Date())
        } catch {
            throw CommandFailure("cannot finish the run: \(error)\nThe evidence is kept in \(directory.url.path)", code: .ioError)
        }
        return directory
    }
}
