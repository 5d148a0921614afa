/// One option of a command: its key, what it takes, and its line of help.
struct OptionSpec: Sendable {
    var key: OptionKey
    /// What the value is called in help (`FILE`), or `nil` for a flag.
    var valueName: String?
    var help: String
    /// The option may be given more than once; ``Arguments/all(_:)`` has every value.
    var repeatable = false
    /// The command cannot do without it: the command list shows it with the command (`plan MATRIX --env ENV`).
    /// The command itself checks that it is there, with a message of its own.
    var required = false
    /// For enum-valued options: the values (``Arguments/choice(_:)`` checks them; completion offers them).
    var choices: Choices?

    var name: String { key.name }
    var takesValue: Bool { valueName != nil }

    /// An option without a value.
    static func flag(_ key: OptionKey, _ help: String) -> OptionSpec {
        OptionSpec(key: key, valueName: nil, help: help)
    }

    /// An option with a value.
    static func value(_ key: OptionKey, _ valueName: String, _ help: String, choices: Choices? = nil, repeatable: Bool = false,
                      required: Bool = false) -> OptionSpec {
        OptionSpec(key: key, valueName: valueName, help: help, repeatable: repeatable, required: required, choices: choices)
    }

    /// `--help`, which every command has.
    static let help = flag(.help, "show this help")

    /// Completion offers files for the value: a value named as a path, or open values.
    var completesFiles: Bool {
        guard let valueName else { return false }
        return choices?.open ?? ["FILE", "DIR", "RUN_DIR", "MATRIX", "CMD"].contains(valueName)
    }
}

/// A positional argument of a command, as help and completion show it.
struct Positional: Sendable {
    /// As usage writes it: `MATRIX`, `RUN_DIR…`, `[PAYLOAD]`.
    var name: String
    var help: String
    /// For an argument that is one of a few words (`completion bash|zsh|fish`).
    var choices: Choices?
    var completion: Completion

    /// What completion offers for a positional argument.
    enum Completion: Sendable {
        /// File names.
        case files
        /// The values of ``Positional/choices``.
        case values
        /// Commands and subcommands (`matrix help`).
        case commands
        /// Nothing (an alias of an accounts file).
        case nothing
    }

    /// - Parameter completion: by default the values of `choices`, else files.
    init(_ name: String, _ help: String, choices: Choices? = nil, completion: Completion? = nil) {
        self.name = name
        self.help = help
        self.choices = choices
        self.completion = completion ?? (choices == nil ? .files : .values)
    }
}

/// A command (or subcommand) of `matrix`, declared once: the command list, `matrix help CMD`, `--help` and the
/// completion scripts are all made from it.
struct CommandSpec: Sendable {
    /// The words that name it: `["run"]`, `["pki", "sign"]`.
    var path: [String]
    /// One line for the command list.
    var summary: String
    /// Usage lines after `matrix <path>`: `MATRIX [options]`. Empty for a command of subcommands, whose usage
    /// is theirs.
    var usage: [String]
    /// What the command does, for its help. Each line is a paragraph wrapped to the terminal width; a line that
    /// starts with spaces is a list item (`  term  text`), wrapped under its text.
    var discussion: String
    var positionals: [Positional]
    /// The command's options, `--help` last. For a command of subcommands: the options its subcommands share.
    var options: [OptionSpec]
    var subcommands: [CommandSpec]

    init(_ path: [String], summary: String, usage: [String] = [], discussion: String = "", positionals: [Positional] = [],
         options: [OptionSpec] = [], subcommands: [CommandSpec] = []) {
        self.path = path
        self.summary = summary
        self.usage = usage
        self.discussion = discussion
        self.positionals = positionals
        self.options = options.contains { $0.key == .help } ? options : options + [.help]
        self.subcommands = subcommands
    }

    var name: String { path.last ?? "" }
    /// `matrix pki sign`.
    var invocation: String { (["matrix"] + path).joined(separator: " ") }

    /// The subcommand named `name`.
    func subcommand(_ name: String) -> CommandSpec? {
        subcommands.first { $0.name == name }
    }

    /// The declaration of `key` for this command.
    func option(_ key: OptionKey) -> OptionSpec? {
        options.first { $0.key == key }
    }

    /// The options `parent`'s subcommand takes: its own, then those its parent shares, then `--help`.
    func options(under parent: CommandSpec?) -> [OptionSpec] {
        guard let parent else { return options }
        let own = options.filter { $0.key != .help }
        return own + parent.options.filter { shared in shared.key != .help && !own.contains { $0.key == shared.key } } + [.help]
    }

    /// Every option this command or one of its subcommands takes, each once: a command that parses its options
    /// before it knows the subcommand (`matrix sandbox --accounts FILE set …`) parses with these.
    var optionsWithSubcommands: [OptionSpec] {
        var all = options
        for subcommand in subcommands {
            for option in subcommand.optionsWithSubcommands where !all.contains(where: { $0.key == option.key }) {
                all.append(option)
            }
        }
        return all
    }

    /// The command with its arguments, for the command list: `merge RUN_DIR… --out DIR`.
    var synopsis: String {
        let required = options.filter(\.required).map { "\($0.name) \($0.valueName ?? "")" }
        return (path + positionals.map(\.name) + required).joined(separator: " ")
    }
}
