import Foundation
import MatrixModel
import MatrixPlanning

/// `matrix plan MATRIX --env sandbox|testflight|xcode`: the schedule and wall time of a run where a person
/// performs the steps, without running anything.
struct PlanCommand {
    let console: Console

    static let spec = CommandSpec(
        ["plan"], summary: "Print the schedule and wall time of a run in sandbox, testflight or xcode",
        usage: ["MATRIX --env sandbox|testflight|xcode [--clock CLOCK] [--accounts N] [--format text|json]"],
        discussion: """
            Prints, without running anything, what a run of MATRIX in the environment asks of the testers: per case \
            the setup (which test account, clearing its purchase history, what it must own and how to get it, family \
            membership, Ask to Buy, per-account settings such as the renewal rate, a fresh install), the steps one line \
            each, every wait and its length from Apple's clock tables, the steps skipped as environment limits and why, \
            and what to undo afterwards. Cases that need different app-wide settings (the billing grace period, a price \
            increase) form groups that run one after another, with the settings to make before each; within a group \
            N accounts (lanes) run cases in parallel, longest first, each to the lane free soonest, and cases on a lane \
            share its test account unless they need accounts of their own. Totals: one account running every case in \
            turn, and N accounts group after group. `advanceTime by` durations are real time. See docs/matrix-init.md.
            Exit status: 0 planned, 64 usage, 65 invalid matrix, 66 unreadable matrix.
            """,
        positionals: [Positional("MATRIX", "the matrix file to plan")],
        options: [
            .value(.env, "ENV", "sandbox, testflight or xcode", choices: Choices(RunPlanner.environments.map(\.name), caseInsensitive: true),
                   required: true),
            .value(.clock, "CLOCK",
                   "the environment's clock: sandbox:<3|5|15|30|60> (default sandbox:5), testflight, xcode[:timeRate] (default: the catalog's _timeRate)",
                   choices: plannedClocks),
            .value(.accounts, "N", "test accounts (lanes) running cases in parallel, each shared by its cases (default 1)"),
            .value(.format, "FORMAT", "text (default) or json", choices: .textOrJSON),
        ] + SelectionOptions.options)

    /// The clocks of the environments planned for; `real` is left to the check that names the environment's own.
    static let plannedClocks = Choices(["sandbox", "testflight", "xcode"], families: Choices.clock.families, aliases: ["real": "real"],
                                       caseInsensitive: true)

    func execute(_ arguments: [String]) async throws(CommandFailure) -> ExitCode {
        guard let args = try Arguments.parse(arguments, for: Self.spec, on: console) else { return .success }
        guard args.positionals.count == 1, let path = args.positionals.first else {
            throw .usage(args.positionals.isEmpty ? "missing MATRIX (the matrix file to plan)" : "plan takes one MATRIX, got \(args.positionals.count)")
        }
        guard let environment = try args.choice(.env, { name in
            RunPlanner.environments.first { $0.name == name.lowercased() }
        }) else {
            throw .usage("missing --env (sandbox, testflight or xcode)")
        }
        let accounts = try args.int(.accounts, in: 1...1000) ?? 1
        let format = try args.choice(.format) ?? "text"

        let (loaded, diagnostics, _) = try InputFiles.loadMatrix(path)
        _ = MatrixCommand.report(diagnostics, on: console)
        guard let whole = loaded else {
            let count = diagnostics.filter { $0.severity == .error }.count
            throw CommandFailure("\(path) has \(count) error\(count == 1 ? "" : "s"); nothing was planned", code: .dataError)
        }
        let selection = SelectionOptions.selection(args)
        let matrix = try SelectionOptions.selected(whole, selection)
        if !selection.isEmpty {
            console.info("planning \(matrix.cases.count) of the matrix's \(whole.cases.count) cases (\(Console.visible(selection.summary)))", always: true)
        }

        var schedule: RenewalSchedule?
        if let clock = try args.choice(.clock) {
            switch RenewalSchedule.parse(clock, storeKitTimeRate: matrix.catalog.settings.timeRate) {
            case .success(let parsed):
                guard parsed.environment == environment else {
                    throw .usage("--clock \(clock) is not a clock of \(environment.displayName); use "
                        + ["sandbox": "sandbox:<3|5|15|30|60>", "testflight": "testflight", "xcode": "xcode or xcode:<timeRate>"][environment.name, default: ""])
                }
                schedule = parsed
            case .failure(let problem):
                throw .usage("--clock: \(problem.message)")
            }
        }
        let plan = await RunPlanner.plan(matrix, matrixPath: path, environment: environment, schedule: schedule, accounts: accounts)
        if format == "json", let note = plan.clockNote { console.info("note: \(note)", always: true) }
        if format == "json" {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            do {
                console.outputData(try encoder.encode(plan) + Data("\n".utf8))
            } catch {
                throw CommandFailure("cannot encode the plan: \(error)", code: .software)
            }
        } else {
            console.outputText(plan.text)
        }
        return .success
    }
}
