import MatrixJSON

/// A small command-line parser: `--name value`, `--name=value`, flags, positionals, and `--` to end options.
struct Arguments {
    /// What an option takes.
    struct Option {
        var name: String
        var takesValue: Bool
        var repeatable: Bool = false
        var help: String
        var valueName: String = "VALUE"
    }

    var positionals: [String] = []
    var values: [String: [String]] = [:]
    var flags: Set<String> = []

    /// A command's arguments, or `nil` after printing `help` on stdout when they ask for `--help` (the command
    /// then exits 0).
    /// - Throws: as ``init(_:options:)``.
    static func parse(_ arguments: [String], options: [Option], help: String, on console: Console) throws(CommandFailure) -> Arguments? {
        let args = try Arguments(arguments, options: options)
        guard !args.has("--help") else {
            console.output(help + "\n")
            return nil
        }
        return args
    }

    /// Parses `arguments` against `options`.
    /// - Throws: ``CommandFailure`` (usage) for an unknown option, a missing value, or a repeated single option.
    init(_ arguments: [String], options: [Option]) throws(CommandFailure) {
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
            if name == "-h" { name = "--help" }
            guard let option = byName[name] else {
                let known = options.map(\.name)
                let hint = Suggestion.nearest(name, among: known).map { "; did you mean \($0)?" } ?? ""
                throw .usage("unknown option \(name)\(hint)")
            }
            if option.takesValue {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count else { throw .usage("\(name) needs a value (\(option.valueName))") }
                    value = arguments[index]
                    index += 1
                }
                if values[name] != nil, !option.repeatable { throw .usage("\(name) is given more than once") }
                values[name, default: []].append(value)
            } else {
                if inlineValue != nil { throw .usage("\(name) takes no value") }
                flags.insert(name)
            }
        }
    }

    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
    func has(_ name: String) -> Bool { flags.contains(name) }

    /// An integer option within `range`.
    func int(_ name: String, in range: ClosedRange<Int>) throws(CommandFailure) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw .usage("\(name) must be an integer from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return number
    }

    /// Renders option help lines.
    static func help(_ options: [Option]) -> String {
        options.map { option in
            let left = option.takesValue ? "\(option.name) \(option.valueName)" : option.name
            return "  " + left.padding(toLength: max(left.count + 2, 28), withPad: " ", startingAt: 0) + option.help
        }.joined(separator: "\n")
    }
}
