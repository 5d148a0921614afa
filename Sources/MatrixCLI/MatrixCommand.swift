import Foundation
import MatrixJSON
import MatrixModel
import Reporters
import SignedData

/// The `matrix` command line: parses the subcommand and runs it. Only ``main(_:)`` decides the exit code.
public enum MatrixCommand {
    /// The tool's version, recorded in every run manifest.
    public static let version = ToolVersion.current

    /// The command list, wrapped to `width`.
    static func usage(width: Int) -> String {
        HelpText.usage(CommandTable.commands, width: width)
    }

    /// Runs the command line and returns the exit code.
    public static func main(_ arguments: [String], console: Console = Console()) async -> Int32 {
        let status = await execute(arguments, console: console)
        // What a command printed to stdout is its result: when it did not all get there, say so.
        if let failure = console.outputFailure {
            if !console.outputReaderLeft { console.error("cannot write to standard output: \(failure)") }
            return ExitCode.ioError.rawValue
        }
        return status
    }

    static func execute(_ arguments: [String], console: Console) async -> Int32 {
        let args = Array(arguments.dropFirst())
        // On stderr with an error: `info` ends the line.
        let usageHint = { String(usage(width: console.width).dropLast()) }
        do throws(CommandFailure) {
            guard let command = args.first else {
                console.error("missing command")
                console.info(usageHint(), always: true)
                return ExitCode.usage.rawValue
            }
            switch command {
            case OptionKey.help.name, "-h":
                console.output(usage(width: console.width))
                return ExitCode.success.rawValue
            case OptionKey.version.name, "-V":
                console.output(version + "\n")
                return ExitCode.success.rawValue
            default:
                guard let entry = CommandTable.entry(command) else { throw CommandTable.unknownCommand(command) }
                return try await entry.run(console, Array(args.dropFirst())).rawValue
            }
        } catch {
            if !error.message.isEmpty { console.error(error.printed) }
            if error.showUsage {
                if let command = args.first.flatMap(CommandTable.entry)?.spec, command.name != HelpCommand.spec.name {
                    let subcommand = args.dropFirst().first.flatMap(command.subcommand)
                    console.info("Run `\((subcommand ?? command).invocation) --help` for its options.", always: true)
                } else {
                    console.info("\n" + usageHint(), always: true)
                }
            }
            return error.code.rawValue
        }
    }

    /// Prints diagnostics compiler-style; returns whether any was an error.
    static func report(_ diagnostics: [Diagnostic], on console: Console) -> Bool {
        for diagnostic in diagnostics {
            console.annotate(GitHubAnnotations.command(for: diagnostic))
            // One line each: a diagnostic quotes the file, whose newlines must not start lines of their own.
            let line = TerminalText.visible(diagnostic.rendered)
            switch diagnostic.severity {
            case .error: console.info([.painted(line, .red)], always: true)
            case .warning: if !console.quiet { console.info([.painted(line, .yellow)]) }
            case .note: console.info(line)
            }
        }
        return diagnostics.hasErrors
    }
}
