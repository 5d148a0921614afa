import Foundation
import EvidenceStore
import FileIO
import MatrixComparison
import MatrixModel

/// A run directory named on the command line, read back: its manifest and its evidence.
struct LoadedRun {
    /// The path as the user gave it.
    var path: String
    var directory: RunDirectory
    var manifest: RunManifest
    var records: [EvidenceRecord]
    /// Whether a torn last line of `evidence.jsonl` was left out.
    var droppedTornLine: Bool

    /// The run as ``Comparator`` takes it.
    var compared: ComparedRun {
        // A run of the reference app with a known bug is an app environment, not the reference.
        ComparedRun(path: path, runId: manifest.runId,
                    environment: manifest.appFault.map { "\(manifest.environment) with app fault \($0)" } ?? manifest.environment,
                    build: manifest.build,
                    clock: manifest.clock, matrixName: manifest.matrix.name, matrixSHA256: manifest.matrix.sha256, status: manifest.status.rawValue,
                    records: records, selection: manifest.selection?.summary, selectedCases: manifest.selectedCases.map(Set.init))
    }
}

/// Reads run directories named on the command line, with the exit codes of docs/architecture.md: 66 when the
/// directory or one of its files cannot be read, 65 when it is not a run directory (no `run.json` or
/// `evidence.jsonl`, a manifest this version cannot read, evidence damaged before its last line).
enum RunInput {
    /// Reads `path`'s `run.json` and `evidence.jsonl`; prints a warning when a torn last line is left out.
    static func load(_ path: String, console: Console) throws(CommandFailure) -> LoadedRun {
        let (directory, manifest) = try open(path)
        do {
            let evidence = try directory.readEvidence()
            if evidence.droppedTornLine { warnTorn(path, console: console) }
            return LoadedRun(path: path, directory: directory, manifest: manifest, records: evidence.records,
                             droppedTornLine: evidence.droppedTornLine)
        } catch {
            throw failure(error, path: path)
        }
    }

    /// Checks that `path` is a readable run directory and reads its `run.json`, leaving the evidence on disk.
    static func open(_ path: String) throws(CommandFailure) -> (directory: RunDirectory, manifest: RunManifest) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let reason = errno == ENOENT ? "no such directory" : String(cString: strerror(errno))
            throw CommandFailure("cannot read run directory \(path): \(reason)", code: .noInput)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw CommandFailure("\(path) is not a run directory: it is a file; name the directory that holds run.json "
                                     + "and evidence.jsonl", code: .dataError)
        }
        guard access(path, R_OK | X_OK) == 0 else {
            throw CommandFailure("cannot read run directory \(path): \(String(cString: strerror(errno)))", code: .noInput)
        }
        let directory = RunDirectory(url: URL(fileURLWithPath: path, isDirectory: true))
        for file in [RunDirectory.manifestFileName, RunDirectory.evidenceFileName] {
            let filePath = directory.url.appendingPathComponent(file).path
            guard FileManager.default.fileExists(atPath: filePath) else {
                throw CommandFailure("\(path) is not a run directory: it has no \(file); name a directory that "
                                         + "`matrix run` wrote, e.g. reports/local/unspecified/<run-id>", code: .dataError)
            }
        }
        do {
            return (directory, try directory.readManifest())
        } catch {
            throw failure(error, path: path)
        }
    }

    /// The warning for a torn last evidence line that was left out.
    static func warnTorn(_ path: String, console: Console) {
        console.warning("\((path as NSString).appendingPathComponent(RunDirectory.evidenceFileName)): the last line is incomplete (the run stopped "
                            + "while writing it) and was left out")
    }

    /// The exit code for an error reading a run: 66 unreadable, 65 not a run or damaged.
    static func failure(_ error: any Error, path: String) -> CommandFailure {
        if let error = error as? EvidenceReadError {
            return CommandFailure(error.message, code: error.code == .unreadable ? .noInput : .dataError)
        }
        return CommandFailure("cannot read run directory \(path): \(error)", code: .noInput)
    }
}
