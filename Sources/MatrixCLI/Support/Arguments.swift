import MatrixJSON

/// A small command-line parser: `--name value`, `--name=value`, flags, positionals, and `--` to end options.
struct Arguments {
    var positionals: [String] = []
    private var values: [OptionKey: [String]] = [:]
    private var flags: Set<OptionKey> = []
    /// The options parsed against, for ``choice(_:)``.
    private let declared: [OptionKey: OptionSpec]

    /// A command's arguments, or `nil` after printing its help on stdout when they ask for `--help` (the command
    /// then exits 0).
    /// - Parameter parent: the command whose subcommand `command` is: its shared options are parsed too.
    /// - Throws: as ``init(_:options:)``.
    static func parse(_ arguments: [String], for command: CommandSpec, under parent: CommandSpec? = nil,
                      on console: Console) throws(CommandFailure) -> Arguments? {
        let args = try Arguments(arguments, options: command.options(under: parent))
        guard !args.has(.help) else {
            console.output(HelpText.command(command, under: parent, width: console.width))
            return nil
        }
        return args
    }

    /// Parses `arguments` against `options`.
    /// - Throws: ``CommandFailure`` (usage) for an unknown option, a missing value, or a repeated single option.
    init(_ arguments: [String], options: [OptionSpec]) throws(CommandFailure) {
        declared = Dictionary(options.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let byName = Dictionary(options.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            if name == "-h" { name = OptionKey.help.name }
            guard let option = byName[name] else {
                let hint = Suggestion.nearest(name, among: options.map(\.name)).map { "; did you mean \($0)?" } ?? ""
                throw .usage("unknown option \(name)\(hint)")
            }
            if let valueName = option.valueName {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count else { throw .usage("\(name) needs a value (\(valueName))") }
                    value = arguments[index]
                    index += 1
                }
                if values[option.key] != nil, !option.repeatable { throw .usage("\(name) is given more than once") }
                values[option.key, default: []].append(value)
            } else {
                if inlineValue != nil { throw .usage("\(name) takes no value") }
                flags.insert(option.key)
            }
        }
    }

    /// The option's value (the last one of a repeatable option).
    func value(_ key: OptionKey) -> String? { values[key]?.last }
    /// Every value of a repeatable option, in order.
    func all(_ key: OptionKey) -> [String] { values[key] ?? [] }
    /// Whether a flag is set.
    func has(_ key: OptionKey) -> Bool { flags.contains(key) }

    /// An integer option within `range`.
    func int(_ key: OptionKey, in range: ClosedRange<Int>) throws(CommandFailure) -> Int? {
        guard let text = value(key) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw .usage("\(key) must be an integer from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return number
    }

    /// An enum-valued option's value, as one of its declared ``Choices`` spells it.
    /// - Throws: ``CommandFailure`` (usage) naming the values and the nearest one for any other value.
    func choice(_ key: OptionKey) throws(CommandFailure) -> String? {
        try choice(key) { text in declared[key]?.choices?.match(text) }
    }

    /// An enum-valued option's value as the enum case its declared value names.
    func choice<Value: RawRepresentable>(_ key: OptionKey, as type: Value.Type) throws(CommandFailure) -> Value?
    where Value.RawValue == String {
        try choice(key) { text in declared[key]?.choices?.match(text).flatMap(Value.init(rawValue:)) }
    }

    /// An enum-valued option's value as `parse` reads it; where `parse` returns `nil`, the usage error names
    /// the declared values and the nearest one.
    func choice<Value>(_ key: OptionKey, _ parse: (String) -> Value?) throws(CommandFailure) -> Value? {
        guard let text = value(key) else { return nil }
        if let parsed = parse(text) { return parsed }
        throw rejection(text, for: key)
    }

    /// The usage error for `text`, which is not a value of the declared option `key`.
    func rejection(_ text: String, for key: OptionKey) -> CommandFailure {
        guard let choices = declared[key]?.choices else {
            return CommandFailure("internal: \(key) declares no values", code: .software)
        }
        return choices.rejection(text, for: key.name)
    }
}
