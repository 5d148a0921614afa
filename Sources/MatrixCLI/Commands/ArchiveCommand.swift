import EvidenceArchive
import EvidenceStore
import EvidenceVerification
import FileIO
import Foundation
import MatrixModel
import SignedData
import Signing

/// `matrix archive RUN_DIR --out FILE`: packs a finished run into one `.tar.gz` with `archive.json`, the
/// SHA-256 of every file of the run (`run.json` included), for attaching to a release.
struct ArchiveCommand {
    let console: Console

    static let spec = CommandSpec(
        ["archive"], summary: "Pack a run into one .tar.gz with the SHA-256 of every file",
        usage: ["RUN_DIR [--out FILE] [--force] [--allow-running]"],
        discussion: """
            Packs the run directory RUN_DIR into the gzip tar FILE (default: <run-id>.tar.gz in the current \
            directory) with the system tar. The archive holds archive.json \
            (run id, environment, status, the app's bundle id when the run's matrix is readable and unchanged, and the \
            SHA-256 of every file of the run, run.json included) and the run directory beside it. `matrix verify FILE` \
            checks it all again. A run that has not ended (no endedAt in run.json) is refused unless \
            --allow-running; FILE is never replaced unless --force.

            Exit status: 0 written, 64 usage (including an existing FILE without --force), 65 RUN_DIR is not an ended \
            run directory or holds something other than regular files, 66 RUN_DIR cannot be read, 69 tar is \
            unavailable, 74 FILE cannot be written (tar failed, or the disk is full), 130 interrupted (no partial \
            FILE is left).
            """,
        positionals: [Positional("RUN_DIR", "the run directory to archive")],
        options: [
            .value(.out, "FILE", "the archive to write (default: <run-id>.tar.gz here)"),
            .flag(.force, "replace FILE if it exists"),
            .flag(.allowRunning, "archive a run that has not ended (its process died, say)"),
            .flag(.quiet, "print only errors"),
        ])

    func execute(_ arguments: [String]) throws(CommandFailure) -> ExitCode {
        guard let args = try Arguments.parse(arguments, for: Self.spec, on: console) else { return .success }
        console.quiet = args.has(.quiet)
        guard args.positionals.count == 1, let path = args.positionals.first else {
            throw .usage(args.positionals.isEmpty ? "missing RUN_DIR (the run directory to archive)" : "archive takes one RUN_DIR, got \(args.positionals.count)")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CommandFailure("cannot read run directory \(path): no such directory", code: .noInput)
        }
        guard isDirectory.boolValue else {
            throw CommandFailure("\(path) is not a directory; matrix archive packs a run directory (reports/<environment>/<build>/<run-id>)", code: .dataError)
        }
        let run = RunDirectory(url: URL(fileURLWithPath: path))
        let manifest: RunManifest
        do {
            manifest = try run.readManifest()
        } catch let error as EvidenceReadError where error.code == .unreadable {
            throw CommandFailure("\(path) is not a run directory: \(error.message)", code: .dataError)
        } catch {
            throw CommandFailure("\(path) is not a run directory matrix can read: \(error)", code: .dataError)
        }
        if let evidence = manifest.notEndedEvidence {
            guard args.has(.allowRunning) else {
                throw CommandFailure("run \(manifest.runId) has not ended (\(evidence)): it is still running, or its process died. "
                                     + "Archive it when it ends (`matrix run MATRIX --resume RUN_DIR` finishes one whose process died), or pass --allow-running to archive it as it is",
                                     code: .dataError)
            }
            console.warning("run \(manifest.runId) has not ended; its run.json lists the files as they were when it started")
        }
        let mismatches = FileIntegrity.check(directory: run.url, expected: manifest.files, ignoring: [RunDirectory.manifestFileName])
            .filter { $0.status != .ok }
        if !mismatches.isEmpty {
            let names = mismatches.map { "\($0.path) (\(RunVerificationReport.fileLabel($0.status).lowercased()))" }
            console.warning("the run's files do not match its run.json: \(names.joined(separator: ", ")); the archive keeps them as they are, and matrix verify will report them")
        }

        let out = args.value(.out) ?? run.url.lastPathComponent + ".tar.gz"
        try OutputFile.refuseInsideRun(out, option: args.value(.out) == nil ? "the archive" : "--out")
        let output = URL(fileURLWithPath: out)
        let archived: ArchiveManifest
        // A signal ends tar; the partial archive and the temporary directory are removed, and the exit is 130.
        let trap = SignalTrap()
        defer { trap.release() }
        let interruption = Interruption()
        trap.whenSignalled { interruption.interrupt() }
        do {
            archived = try RunArchive.create(run: run, manifest: manifest, output: output, overwrite: args.has(.force),
                                             toolVersion: MatrixCommand.version, bundleId: RunVerification.matrixBundleId(of: manifest, runDirectory: run.url, load: InputFiles.matrixSources),
                                             now: Date(), interruption: interruption)
        } catch let error as RunArchiveError {
            switch error.code {
            case .interrupted: throw CommandFailure(error.message, code: .interrupted)
            case .tarUnavailable: throw CommandFailure(error.message, code: .unavailable)
            // As `init` and `merge`: replacing a file takes --force.
            case .outputExists: throw CommandFailure(error.message, code: .usage)
            case .unsupportedFile: throw CommandFailure(error.message, code: .dataError)
            default: throw CommandFailure(error.message, code: .ioError)
            }
        } catch {
            throw CommandFailure("cannot archive \(path): \(error)", code: .ioError)
        }
        let digest = (try? Data(contentsOf: output)).map { SHA256.hexHash($0) } ?? "unknown"
        console.info("archived run \(archived.runId) (\(archived.files.count) files\(archived.bundleId.map { ", bundle id \($0)" } ?? "")) to \(out)")
        console.info("SHA-256 of \(output.lastPathComponent): \(digest)")
        return .success
    }
}
