/// `matrix completion bash|zsh|fish`: a script that completes commands, subcommands, options and their
/// values, made from the command table.
struct CompletionCommand {
    let console: Console

    enum Shell: String, CaseIterable {
        case bash, zsh, fish
    }

    static let shells = Choices(Shell.self)

    static let spec = CommandSpec(
        ["completion"], summary: "Print a completion script for bash, zsh or fish",
        usage: ["bash|zsh|fish"],
        discussion: """
            Prints a script that completes matrix's commands, subcommands, options and the values of options that \
            take one of a few, for the shell named. Load it in the shell, or in every new one from its startup file:
              bash  source <(matrix completion bash)   (in ~/.bashrc)
              zsh   source <(matrix completion zsh)    (in ~/.zshrc, after compinit)
              fish  matrix completion fish | source    (in ~/.config/fish/config.fish)
            Exit status: 0 printed, 64 usage.
            """,
        positionals: [Positional("SHELL", "bash, zsh or fish", choices: shells)])

    func execute(_ arguments: [String]) throws(CommandFailure) -> ExitCode {
        guard let args = try Arguments.parse(arguments, for: Self.spec, on: console) else { return .success }
        guard let name = args.positionals.first else { throw .usage("missing SHELL (bash, zsh or fish)") }
        guard args.positionals.count == 1 else { throw .usage("completion takes one SHELL, got \(args.positionals.count)") }
        guard let shell = Self.shells.match(name).flatMap(Shell.init(rawValue:)) else { throw Self.shells.rejection(name, for: "SHELL") }
        let commands = CommandTable.commands
        switch shell {
        case .bash: console.output(CompletionScript.bash(commands))
        case .zsh: console.output(CompletionScript.zsh(commands))
        case .fish: console.output(CompletionScript.fish(commands))
        }
        return .success
    }
}
