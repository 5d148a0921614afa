import MatrixJSON

/// Every command of `matrix`, declared once, in the order the command list shows them: the dispatcher, the
/// command list, `matrix help CMD` and the completion scripts all read this table.
enum CommandTable {
    /// A command and what runs it.
    struct Entry: Sendable {
        var spec: CommandSpec
        var run: @Sendable (Console, [String]) async throws(CommandFailure) -> ExitCode

        init(_ spec: CommandSpec, _ run: @escaping @Sendable (Console, [String]) async throws(CommandFailure) -> ExitCode) {
            self.spec = spec
            self.run = run
        }
    }

    static let entries: [Entry] = [
        Entry(InitCommand.spec) { console, arguments throws(CommandFailure) in try InitCommand(console: console).execute(arguments) },
        Entry(RunCommand.spec) { console, arguments throws(CommandFailure) in try await RunCommand(console: console).execute(arguments) },
        Entry(ValidateCommand.spec) { console, arguments throws(CommandFailure) in try ValidateCommand(console: console).execute(arguments) },
        Entry(ScoreCommand.spec) { console, arguments throws(CommandFailure) in try await ScoreCommand(console: console).execute(arguments) },
        Entry(PlanCommand.spec) { console, arguments throws(CommandFailure) in try await PlanCommand(console: console).execute(arguments) },
        Entry(ReportCommand.spec) { console, arguments throws(CommandFailure) in try ReportCommand(console: console).execute(arguments) },
        Entry(CompareCommand.spec) { console, arguments throws(CommandFailure) in try CompareCommand(console: console).execute(arguments) },
        Entry(MergeCommand.spec) { console, arguments throws(CommandFailure) in try await MergeCommand(console: console).execute(arguments) },
        Entry(FaultsCommand.spec) { console, arguments throws(CommandFailure) in try FaultsCommand(console: console).execute(arguments) },
        Entry(SandboxCommand.spec) { console, arguments throws(CommandFailure) in try await SandboxCommand(console: console).execute(arguments) },
        Entry(VerifyCommand.spec) { console, arguments throws(CommandFailure) in try VerifyCommand(console: console).execute(arguments) },
        Entry(ArchiveCommand.spec) { console, arguments throws(CommandFailure) in try ArchiveCommand(console: console).execute(arguments) },
        Entry(PKICommand.spec) { console, arguments throws(CommandFailure) in try PKICommand(console: console).execute(arguments) },
        Entry(DriverCommand.spec) { console, arguments throws(CommandFailure) in try await DriverCommand(console: console).execute(arguments) },
        Entry(SchemaCommand.spec) { console, arguments throws(CommandFailure) in try SchemaCommand(console: console).execute(arguments) },
        Entry(HelpCommand.spec) { console, arguments throws(CommandFailure) in try HelpCommand(console: console).execute(arguments) },
        Entry(CompletionCommand.spec) { console, arguments throws(CommandFailure) in try CompletionCommand(console: console).execute(arguments) },
    ]

    /// The commands, in order.
    static var commands: [CommandSpec] { entries.map(\.spec) }

    /// The command named `name`.
    static func entry(_ name: String) -> Entry? {
        entries.first { $0.spec.name == name }
    }

    /// The command `words` name (`["sandbox", "set"]`), with the command it is a subcommand of.
    /// - Throws: ``CommandFailure`` (usage) for an unknown command or subcommand, with the nearest name.
    static func resolve(_ words: [String]) throws(CommandFailure) -> (command: CommandSpec, parent: CommandSpec?) {
        guard let name = words.first else { throw .usage("missing command") }
        guard let command = entry(name)?.spec else { throw unknownCommand(name) }
        guard words.count > 1 else { return (command, nil) }
        let subName = words[1]
        guard let subcommand = command.subcommand(subName) else {
            if command.subcommands.isEmpty { throw .usage("\(name) has no subcommands, got \"\(subName)\"") }
            let hint = Suggestion.nearest(subName, among: command.subcommands.map(\.name)).map { "; did you mean \($0)?" } ?? ""
            throw .usage("unknown \(name) subcommand \"\(subName)\"\(hint)")
        }
        guard words.count == 2 else { throw .usage("\(name) \(subName) has no subcommands, got \"\(words[2])\"") }
        return (subcommand, command)
    }

    /// The usage error for a command that is not in the table, with the nearest one.
    static func unknownCommand(_ name: String) -> CommandFailure {
        let hint = Suggestion.nearest(name, among: commands.map(\.name)).map { "; did you mean \($0)?" } ?? ""
        return .usage("unknown command \"\(name)\"\(hint)")
    }
}
