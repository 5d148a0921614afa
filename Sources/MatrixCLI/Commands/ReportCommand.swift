import Foundation
import EvidenceStore
import FileIO
import MatrixModel
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
            and report.html as `matrix run` wrote them, or JSON (the manifest and each case's result). Without \
            --format, the format follows FILE's extension (.xml JUnit, .md Markdown, .html HTML, .json JSON), and is \
            Markdown otherwise. A torn last evidence line (a run stopped while writing) is left out with a warning.
            Exit status: 0 written, 64 usage (including an existing FILE without --force, or a FILE inside RUN_DIR \
            that run.json does not list), 65 RUN_DIR is not a run directory, 66 RUN_DIR cannot be read, 74 FILE \
            cannot be written.
            """,
        positionals: [Positional("RUN_DIR", "a run directory, e.g. reports/local/unspecified/<run-id>")],
        options: [
            .value(.format, "FORMAT", "junit, markdown, html or json; default: by FILE's extension (.xml, .md, .html, .json), "
                       + "else markdown", choices: Choices(ReportFormat.self)),
            .value(.out, "FILE", "write to FILE instead of stdout, making its folder if missing (never replaced without --force)"),
            .flag(.force, "replace FILE when it exists"),
            .flag(.quiet, "print only errors"),
        ])

    func execute(_ arguments: [String]) throws(CommandFailure) -> ExitCode {
        guard let args = try Arguments.parse(arguments, for: Self.spec, on: console) else { return .success }
        console.quiet = args.has(.quiet)
        let chosen = try args.choice(.format, as: ReportFormat.self)
        guard args.positionals.count == 1, let path = args.positionals.first else {
            throw .usage(args.positionals.isEmpty ? "missing RUN_DIR (a run directory, e.g. reports/local/unspecified/<run-id>)"
                                                  : "report takes one RUN_DIR, got \(args.positionals.count)")
        }
        let (directory, manifest) = try RunInput.open(path)
        let out = args.value(.out)
        let format = chosen ?? out.flatMap(ReportFormat.init(extensionOf:)) ?? .markdown
        let file = try OutputFile.open(out, replacing: args.has(.force),
                                       protected: [directory.evidenceURL.path, directory.manifestURL.path], console: console)
        defer { file.close() }
        let torn: Bool
        do {
            if file.isStandardOutput, isatty(STDOUT_FILENO) == 1 {
                torn = try Self.writeToTerminal(format, from: directory, manifest: manifest, console: console)
            } else {
                torn = try Reports.write(format, from: directory, manifest: manifest, toDescriptor: file.descriptor, path: file.path)
            }
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

    /// Renders the report into a temporary file and prints it as text (``Console/outputData(_:)`` escapes what a
    /// terminal would act on): a report of someone else's evidence cannot move the cursor, recolour or reorder
    /// the terminal it is read on. To a file or a pipe the report is written as it is.
    private static func writeToTerminal(_ format: ReportFormat, from directory: RunDirectory, manifest: RunManifest,
                                        console: Console) throws -> Bool {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = scratch.url.appendingPathComponent("report")
        let descriptor = open(url.path, O_CREAT | O_EXCL | O_WRONLY, 0o600)
        guard descriptor >= 0 else { throw CommandFailure("cannot write a temporary file in \(scratch.url.path): \(String(cString: strerror(errno)))", code: .ioError) }
        let torn: Bool
        do {
            defer { close(descriptor) }
            torn = try Reports.write(format, from: directory, manifest: manifest, toDescriptor: descriptor, path: url.path)
        }
        console.outputData(try Data(contentsOf: url))
        return torn
    }
}
