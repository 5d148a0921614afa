import Foundation
import Adapters
import MatrixCore
import Reporters
import StoreSimulator

/// `matrix run MATRIX`: runs every case in an environment and writes the evidence.
struct RunCommand {
    let console: Console

    static let options: [Arguments.Option] = [
        .init(name: "--env", takesValue: true, help: "environment: local (default)", valueName: "NAME"),
        .init(name: "--build", takesValue: true, help: "build under test, e.g. \"1.4 (212)\"", valueName: "BUILD"),
        .init(name: "--device", takesValue: true, help: "device, e.g. \"iPhone 16\"", valueName: "DEVICE"),
        .init(name: "--os", takesValue: true, help: "OS version, e.g. \"iOS 26.1\"", valueName: "OS"),
        .init(name: "--out", takesValue: true, help: "reports root (default: reports)", valueName: "DIR"),
        .init(name: "--jobs", takesValue: true, help: "cases run at once (default: number of cores)", valueName: "N"),
        .init(name: "--app-fault", takesValue: true, help: "run the reference app with a known bug (see `matrix faults`)", valueName: "NAME"),
        .init(name: "--clock", takesValue: true, help: "clock the local environment models: real (default), xcode[:timeRate], sandbox:<3|5|15|30|60>, testflight", valueName: "CLOCK"),
        .init(name: "--signed-environment", takesValue: true, help: "environment written in signed data: Sandbox (default), Production, Xcode, LocalTesting", valueName: "ENV"),
        .init(name: "--quiet", takesValue: false, help: "print only errors and the summary"),
        .init(name: "--verbose", takesValue: false, help: "print every step"),
        .init(name: "--help", takesValue: false, help: "show this help"),
    ]

    static let help = """
        USAGE: matrix run MATRIX [options]

        Runs every case of MATRIX and writes evidence to <out>/<environment>/<build>/<run-id>/.
        Exit status: 0 every step passed, 1 a step failed, 65 invalid matrix, 66 unreadable matrix,
        69 environment unavailable, 74 cannot write evidence, 130 interrupted (evidence kept).

        OPTIONS:
        \(Arguments.help(options))
        """

    func execute(_ arguments: [String]) async throws(CommandFailure) -> ExitCode {
        let args = try Arguments(arguments, options: Self.options)
        if args.has("--help") {
            console.output(Self.help + "\n")
            return .success
        }
        console.quiet = args.has("--quiet")
        console.verbose = args.has("--verbose")
        guard args.positionals.count == 1, let path = args.positionals.first else {
            throw .usage(args.positionals.isEmpty ? "missing MATRIX (the matrix file to run)" : "run takes one MATRIX, got \(args.positionals.count)")
        }
        let environment = args.value("--env") ?? "local"
        let jobs = try args.int("--jobs", in: 1...256) ?? ProcessInfo.processInfo.activeProcessorCount
        var fault: AppFault?
        if let name = args.value("--app-fault") {
            guard let value = AppFault(rawValue: name) else {
                let hint = Suggestion.nearest(name, among: AppFault.allCases.map(\.rawValue)).map { "; did you mean \($0)?" } ?? ""
                throw .usage("unknown app fault \"\(name)\"\(hint) (see `matrix faults`)")
            }
            fault = value
        }
        let signedEnvironment = args.value("--signed-environment") ?? "Sandbox"
        guard ["Sandbox", "Production", "Xcode", "LocalTesting"].contains(signedEnvironment) else {
            throw .usage("--signed-environment must be Sandbox, Production, Xcode or LocalTesting")
        }

        let (loaded, diagnostics, bytes) = try InputFiles.loadMatrix(path)
        _ = MatrixCommand.report(diagnostics, on: console)
        guard let matrix = loaded else {
            let count = diagnostics.filter { $0.severity == .error }.count
            throw CommandFailure("\(path) has \(count) error\(count == 1 ? "" : "s"); nothing was run", code: .dataError)
        }

        var schedule = RenewalSchedule.real
        if let clock = args.value("--clock") {
            switch RenewalSchedule.parse(clock, storeKitTimeRate: matrix.catalog.settings.timeRate) {
            case .success(let parsed): schedule = parsed
            case .failure(let problem): throw .usage("--clock: \(problem.message)")
            }
        }
        let adapter: any EnvironmentAdapter
        switch environment {
        case "local":
            do {
                adapter = try LocalAdapter(schedule: schedule, signedEnvironment: signedEnvironment, fault: fault)
            } catch {
                throw CommandFailure("the local environment is unavailable: \(error)", code: .unavailable)
            }
        default:
            throw CommandFailure("environment \"\(environment)\" is not available in this version of matrix; use --env local",
                                 code: .unavailable)
        }

        let describedBuild = args.value("--build") ?? adapter.description.build
        let context = RunContext(
            runID: Self.makeRunID(),
            environment: adapter.description.name,
            build: describedBuild ?? "unspecified (local run)",
            device: args.value("--device") ?? adapter.description.device ?? "unspecified",
            os: args.value("--os") ?? adapter.description.os ?? "unspecified")
        let root = URL(fileURLWithPath: args.value("--out") ?? "reports")
        let session = try EvidenceSession.start(
            root: root, buildSlugSource: describedBuild ?? RunDirectory.unspecifiedBuild, context: context, matrix: matrix,
            matrixPath: path, matrixBytes: bytes, clock: adapter.description.clock)

        let runner = Runner(matrix: matrix, adapter: adapter, context: context, jobs: jobs)
        let printer = ProgressPrinter(console: console, total: matrix.cases.count)
        let outcome = await SignalTrap.run {
            try await runner.run(into: session.writer) { printer.handle($0) }
        }
        let summary: RunSummary
        switch outcome {
        case .finished(let result):
            summary = result
        case .failed(let error):
            _ = try? await session.finish(interrupted: true)
            throw CommandFailure("cannot write evidence: \(error)\nEvidence written so far is kept in \(session.directory.url.path)",
                                 code: .ioError)
        }
        let directory = try await session.finish(interrupted: summary.interrupted)
        JobSummary.append(from: directory, console: console)
        printer.summary(summary, directory: Self.displayPath(directory.url))
        if summary.interrupted { return .interrupted }
        return summary.allPassed ? .success : .failure
    }

    /// A path relative to the working directory when it lies below it.
    static func displayPath(_ url: URL) -> String {
        let path = url.standardizedFileURL.path
        let cwd = FileManager.default.currentDirectoryPath
        return path.hasPrefix(cwd + "/") ? String(path.dropFirst(cwd.count + 1)) : path
    }

    /// `20261129T130950Z-3f2a`: sortable, unique enough for one machine.
    static func makeRunID(now: Date = Date()) -> String {
        let stamp = Date.ISO8601FormatStyle(dateSeparator: .omitted, dateTimeSeparator: .standard, timeSeparator: .omitted)
            .format(now)
        return stamp + "-" + String(format: "%04x", UInt16.random(in: 0...UInt16.max))
    }
}
