import Foundation
import MatrixJSON
import MatrixModel

/// `matrix schema [--out FILE]`: the matrix format's JSON Schema, for projects whose matrices live outside this
/// repository (their editors and CI check matrices against it).
struct SchemaCommand {
    let console: Console

    static let spec = CommandSpec(
        ["schema"], summary: "Print or write the JSON Schema of the matrix format",
        usage: ["[--out FILE] [--force]"],
        discussion: """
            Prints the JSON Schema (draft 2020-12) that editors and CI check matrices with: the --strict form of what \
            `matrix validate` checks without the catalog (docs/matrix-format.md). A matrix names it with "$schema", \
            a path relative to the matrix; `matrix init --out matrices/release.json` writes \
            "../schema/matrix.schema.json", which `matrix schema --out schema/matrix.schema.json` creates.
            Exit status: 0 written, 64 usage (including an existing --out without --force), 74 cannot write.
            """,
        options: [
            .value(.out, "FILE", "write the schema to FILE instead of stdout"),
            .flag(.force, "replace FILE if it exists"),
        ])

    func execute(_ arguments: [String]) throws(CommandFailure) -> ExitCode {
        guard let args = try Arguments.parse(arguments, for: Self.spec, on: console) else { return .success }
        guard args.positionals.isEmpty else { throw .usage("schema takes no arguments, got \"\(args.positionals[0])\"") }
        let data = Data(MatrixSchema.text.utf8)
        if let path = args.value(.out), path != "-" {
            try OutputFile.write(data, to: path, replacing: args.has(.force), console: console)
            console.info("wrote \(TerminalText.visible(path)) (\(data.count) bytes): name it in a matrix as \"$schema\", relative to the matrix")
        } else {
            console.outputData(data)
        }
        return .success
    }
}
