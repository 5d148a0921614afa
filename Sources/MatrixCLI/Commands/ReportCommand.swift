import Foundation
import FileIO
import Reporters

/// `matrix report RUN_DIR`: renders a report of a finished (or interrupted) run again from its `run.json` and
/// `evidence.jsonl` alone.
struct ReportCommand {
    let console: Console

    static let spec = CommandSpec(
        ["report"], summary: "Render a run's JUnit, Markdown, HTML or JSON report again from its evidence",
        usage: ["RUN_DIR [--format junit|markdown|html|json] [--out FILE]"],
        discussion: """
            Renders a report of the run in RUN_DIR from its run.json and evidence.jsonl alone: junit.xml, summary.md \
            and report.html as `matrix run` wrote them, or JSON (the manifest and each case's result). A torn last \
            evidence line (a run stopped while writing) is left out with a warning.
            Exit status: 0 written, 64 usage (including an existing FILE without --force), 65 RUN_DIR is not a run \
            directory, 66 RUN_DIR cannot be read, 74 FILE cannot be written.
            """,
        positionals: [Positional("RUN_DIR", "a run directory, e.g. reports/local/unspecified/<run-id>")],
        options: [
            .value(.format, "FORMAT", "junit, markdown (default), html or json", choices: Choices(ReportFormat.self)),
            .value(.out, "FILE", "write to FILE instead of stdout (never replaced without --force)"),
            .flag(.force, "replace FILE when it exists"),
            .flag(.quiet, "print only errors"),
        ])

    func execute(_ arguments: [String]) throws(CommandFailure) -> ExitCode {
        guard let args = try Arguments.parse(arguments, for: Self.spec, on: console) else { return .success }
        console.quiet = args.has(.quiet)
        let format = try args.choice(.format, as: ReportFormat.self) ?? .markdown
        guard args.positionals.count == 1, let path = args.positionals.first else {
            throw .usage(args.positionals.isEmpty ? "missing RUN_DIR (a run directory, e.g. reports/local/unspecified/<run-id>)"
                                                  : "report takes one RUN_DIR, got \(args.positionals.count)")
        }
        let (directory, manifest) = try RunInput.open(path)
        let out = args.value(.out)
        let file = try OutputFile.open(out, replacing: args.has(.force),
                                       protected: [directory.evidenceURL.path, directory.manifestURL.path], console: console)
        defer { file.close() }
        let torn: Bool
        do {
            torn = try Reports.write(format, from: directory, manifest: manifest, toDescriptor: file.descriptor, path: file.path)
        } catch let error as EvidenceWriteError {
            file.removeIfRegularFile()
            if file.isStandardOutput, let number = error.systemError { throw .standardOutput(errno: number) }
            throw CommandFailure("cannot write \(file.path): \(error.message)", code: .ioError)
        } catch {
            file.removeIfRegularFile()
            throw RunInput.failure(error, path: path)
        }
        if torn { RunInput.warnTorn(path, console: console) }
        return .success
    }
}
