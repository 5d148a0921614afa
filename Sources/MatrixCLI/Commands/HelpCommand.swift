/// `matrix help [COMMAND [SUBCOMMAND]]`: the command list, or the help of one command.
struct HelpCommand {
    let console: Console

    static let spec = CommandSpec(
        ["help"], summary: "Print the command list, or a command's help",
        usage: ["[COMMAND [SUBCOMMAND]]"],
        discussion: """
            Prints on stdout the command list, or the help of COMMAND (`matrix help sandbox set` for a subcommand), \
            the same text as `matrix COMMAND --help`.
            Exit status: 0 printed, 64 an unknown command.
            """,
        positionals: [Positional("[COMMAND]", "a command, or a command and its subcommand (`sandbox set`)", completion: .commands)])

    func execute(_ arguments: [String]) throws(CommandFailure) -> ExitCode {
        guard let args = try Arguments.parse(arguments, for: Self.spec, on: console) else { return .success }
        guard !args.positionals.isEmpty else {
            console.output(HelpText.usage(CommandTable.commands, width: console.width))
            return .success
        }
        let (command, parent) = try CommandTable.resolve(args.positionals)
        console.output(HelpText.command(command, under: parent, width: console.width))
        return .success
    }
}
