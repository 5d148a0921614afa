import Foundation
import MatrixJSON
import Reporters
import SignedData

/// The `matrix` command line: parses the subcommand and runs it. Only ``main(_:)`` decides the exit code.
public enum MatrixCommand {
    /// The tool's version, recorded in every run manifest.
    public static let version = "0.1.0"

    static let usage = """
        USAGE: matrix <command> [options]

        Runs StoreKit 2 in-app purchase acceptance matrices and keeps the evidence.

        COMMANDS:
          init --catalog FILE     Write a complete acceptance matrix for a .storekit file
          run MATRIX              Run a matrix (default environment: the embedded local simulator)
          validate MATRIX…        Check matrices and their catalogs; print every problem
          score MATRIX            Run the reference app and every known app fault; report which the matrix catches
          plan MATRIX --env ENV   Print the schedule and wall time of a run in sandbox, testflight or xcode
          report RUN_DIR          Render a run's JUnit, Markdown, HTML or JSON report again from its evidence
          compare RUN_DIR…        Compare runs step by step and classify where each difference comes from
          merge RUN_DIR… --out D  Join the slices of a sharded run (run --shard K/N) into one run
          faults                  List the known app faults for --app-fault
          sandbox SUBCOMMAND      Sandbox Apple Accounts: testers, set (renewal rate), clear (purchase history)
          verify INPUT            Verify a JWS like Apple's SignedDataVerifier, or prove a run or archive unaltered
          archive RUN_DIR         Pack a run into one .tar.gz with the SHA-256 of every file
          pki export-root         Write the simulator root certificate for a backend under test to trust
          pki sign                Sign a payload (or many) with the simulator's chain, as the simulator does
          driver local            Serve the embedded environment over the driver protocol (for --env exec)

        Run `matrix <command> --help` for a command's options; `matrix --version` prints the version.
        """

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
        let known = ["init", "run", "validate", "score", "plan", "faults", "report", "compare", "merge", "sandbox", "verify", "archive", "pki", "driver"]
        do throws(CommandFailure) {
            guard let command = args.first else {
                console.error("missing command")
                console.info(usage, always: true)
                return ExitCode.usage.rawValue
            }
            let rest = Array(args.dropFirst())
            switch command {
            case "--help", "-h", "help":
                console.output(usage + "\n")
                return ExitCode.success.rawValue
            case "--version":
                console.output(version + "\n")
                return ExitCode.success.rawValue
            case "init":
                return try InitCommand(console: console).execute(rest).rawValue
            case "run":
                return try await RunCommand(console: console).execute(rest).rawValue
            case "validate":
                return try ValidateCommand(console: console).execute(rest).rawValue
            case "score":
                return try await ScoreCommand(console: console).execute(rest).rawValue
            case "plan":
                return try await PlanCommand(console: console).execute(rest).rawValue
            case "merge":
                return try await MergeCommand(console: console).execute(rest).rawValue
            case "faults":
                return try FaultsCommand(console: console).execute(rest).rawValue
            case "driver":
                return try await DriverCommand(console: console).execute(rest).rawValue
            case "report":
                return try ReportCommand(console: console).execute(rest).rawValue
            case "compare":
                return try CompareCommand(console: console).execute(rest).rawValue
            case "sandbox":
                return try await SandboxCommand(console: console).execute(rest).rawValue
            case "verify":
                return try VerifyCommand(console: console).execute(rest).rawValue
            case "archive":
                return try ArchiveCommand(console: console).execute(rest).rawValue
            case "pki":
                return try PKICommand(console: console).execute(rest).rawValue
            default:
                let hint = Suggestion.nearest(command, among: known).map { "; did you mean \($0)?" } ?? ""
                throw CommandFailure.usage("unknown command \"\(command)\"\(hint)")
            }
        } catch {
            if !error.message.isEmpty { console.error(error.message) }
            if error.showUsage {
                if let command = args.first, known.contains(command) {
                    console.info("Run `matrix \(command) --help` for its options.", always: true)
                } else {
                    console.info("\n" + usage, always: true)
                }
            }
            return error.code.rawValue
        }
    }

    /// Prints diagnostics compiler-style; returns whether any was an error.
    static func report(_ diagnostics: [Diagnostic], on console: Console) -> Bool {
        for diagnostic in diagnostics {
            let line = Console.visible(diagnostic.rendered)
            switch diagnostic.severity {
            case .error: console.info(console.paint(line, .red), always: true)
            case .warning: if !console.quiet { console.info(console.paint(line, .yellow)) }
            case .note: console.info(line)
            }
        }
        return diagnostics.hasErrors
    }
}
