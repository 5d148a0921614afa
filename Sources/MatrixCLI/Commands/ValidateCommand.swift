import Foundation
import MatrixJSON

/// `matrix validate MATRIX…`: every diagnostic of every matrix and its catalog; exit 65 on any error.
struct ValidateCommand {
    let console: Console

    static let spec = CommandSpec(
        ["validate"], summary: "Check matrices and their catalogs; print every problem",
        usage: ["MATRIX… [--strict] [--format text|json]"],
        discussion: """
            Checks each matrix and the catalog it names without running anything. Prints every problem of every file \
            with file, line, column, JSON Pointer, code and severity: compiler-style on stderr, or with --format json \
            as a JSON array on stdout (file, line, column, pointer, code, severity, message, hint), where a matrix \
            that cannot be read is a row with code MX006. A matrix without errors is also checked for coverage: a \
            catalog product in no tier and no case, or a tier no case expects, is a warning (MX024).
            Exit status: 0 valid, 65 an error (or a warning with --strict), 66 a matrix cannot be read (the others \
            are still checked).
            """,
        positionals: [Positional("MATRIX…", "one or more matrix files")],
        options: [
            .flag(.strict, "treat warnings as errors"),
            .value(.format, "FORMAT", "text (default) or json", choices: .textOrJSON),
        ])

    func execute(_ arguments: [String]) throws(CommandFailure) -> ExitCode {
        guard let args = try Arguments.parse(arguments, for: Self.spec, on: console) else { return .success }
        let format = try args.choice(.format) ?? "text"
        guard !args.positionals.isEmpty else { throw .usage("missing MATRIX (one or more matrix files)") }
        var all: [Diagnostic] = []
        var unreadable = 0
        for path in args.positionals {
            // Every file is checked even when an earlier one cannot be read.
            let diagnostics: [Diagnostic]
            do {
                (_, diagnostics, _) = try InputFiles.loadMatrix(path, checksCoverage: true)
            } catch {
                console.error(error.printed)
                unreadable += 1
                // In JSON too, so that a tool reading only stdout learns which file was not checked.
                all.append(Diagnostic(.error, .unreadableInput, error.message, file: path, pointer: "", location: .start))
                continue
            }
            all += args.has(.strict) ? diagnostics.map(\.strict) : diagnostics
        }
        if format == "json" {
            let rows = all.map(DiagnosticRow.init)
            // An empty array on one line (the pretty printer spreads it over three).
            let data = rows.isEmpty ? Data("[]".utf8) : try JSONOutput.encode(rows)
            console.outputData(data + Data("\n".utf8))
        } else {
            // Unreadable files were reported above, as they were met.
            let checkedFiles = all.filter { $0.code != .unreadableInput }
            _ = MatrixCommand.report(checkedFiles, on: console)
            let errors = checkedFiles.filter { $0.severity == .error }.count
            let warnings = checkedFiles.filter { $0.severity == .warning }.count
            let checked = args.positionals.count - unreadable
            var line = "\(checked) file\(checked == 1 ? "" : "s") checked: \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"
            if unreadable > 0 { line += "; \(unreadable) could not be read" }
            console.info(line, always: true)
        }
        if unreadable > 0 { return .noInput }
        return all.hasErrors ? .dataError : .success
    }

    /// One diagnostic for editors and CI annotations.
    struct DiagnosticRow: Encodable {
        var file: String?
        var line: Int
        var column: Int
        var pointer: String
        var code: String
        var severity: String
        var message: String
        var hint: String?

        init(_ diagnostic: Diagnostic) {
            file = diagnostic.file
            line = diagnostic.location.line
            column = diagnostic.location.column
            pointer = diagnostic.pointer
            code = diagnostic.code.rawValue
            severity = diagnostic.severity.rawValue
            message = diagnostic.message
            hint = diagnostic.hint
        }
    }
}

extension Diagnostic {
    /// The diagnostic as `--strict` reports it: warnings are errors.
    var strict: Diagnostic {
        var copy = self
        if copy.severity == .warning { copy.severity = .error }
        return copy
    }
}
