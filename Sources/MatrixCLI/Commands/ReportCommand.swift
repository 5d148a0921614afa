import Foundation
import EvidenceStore
import FileIO
import MatrixJSON
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
            FILE is written in full before it takes the place of what was there (with --force: the name is \
            replaced, never a file a link there points to), and never inside a run directory.
            Exit status: 0 written, 64 usage (including an existing FILE without --force, or a FILE inside a run \
            directory), 65 RUN_DIR is not a run directory, 66 RUN_DIR cannot be read, 74 FILE cannot be written.
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
        let named = out.flatMap(ReportFormat.init(extensionOf:))
        let format = chosen ?? named ?? .markdown
        if let chosen, let named, let out, chosen != named {
            console.warning("writing the \(chosen.rawValue) report to \(out), whose extension names \(named.rawValue)")
        }
        let file = try OutputFile.open(out, replacing: args.has(.force),
                                       protected: [directory.evidenceURL.path, directory.manifestURL.path], console: console)
        defer { file.close() }
        let torn: Bool
        do {
            if isatty(file.descriptor) == 1 {
                torn = try Self.writeToTerminal(format, from: directory, manifest: manifest, to: file, console: console)
            } else {
                torn = try Reports.write(format, from: directory, manifest: manifest, toDescriptor: file.descriptor, path: file.path)
            }
        } catch let error as EvidenceWriteError {
            if file.isStandardOutput, let number = error.systemError { throw .standardOutput(errno: number) }
            throw CommandFailure("cannot write \(file.path): \(error.message)", code: .ioError)
        } catch {
            throw RunInput.failure(error, path: path)
        }
        try file.commit()
        if torn { RunInput.warnTorn(path, console: console) }
        return .success
    }

    /// Renders the report into a temporary file and prints it to `terminal` (stdout, or a terminal named by
    /// `--out`) as text, escaped as ``TerminalText/visible(_:keepingLineBreaks:)`` escapes it: a report of someone
    /// else's evidence cannot move the cursor, recolour or reorder the terminal it is read on. To a file or a
    /// pipe the report is written as it is.
    private static func writeToTerminal(_ format: ReportFormat, from directory: RunDirectory, manifest: RunManifest,
                                        to terminal: OutputFile, console: Console) throws -> Bool {
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
        let data = try Data(contentsOf: url)
        if terminal.isStandardOutput {
            console.outputData(data)
        } else {
            try terminal.write(Array(TerminalText.visible(String(decoding: data, as: UTF8.self), keepingLineBreaks: true).utf8))
        }
        return torn
    }
}
