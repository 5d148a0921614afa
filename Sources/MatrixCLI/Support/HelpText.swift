import Foundation

/// The help texts, made from the command table and wrapped to a width.
enum HelpText {
    /// Help never wraps narrower than this, however narrow the terminal.
    static let minimumWidth = 40

    /// `matrix --help`: the commands and what each does.
    static func usage(_ commands: [CommandSpec], width: Int) -> String {
        let width = max(width, minimumWidth)
        var rows: [(String, String)] = []
        for command in commands {
            if command.subcommands.isEmpty {
                rows.append((command.synopsis, command.summary))
            } else {
                rows += command.subcommands.map { ($0.synopsis, $0.summary) }
            }
        }
        return [
            wrap("USAGE: matrix <command> [options]", width: width),
            wrap("Runs StoreKit 2 in-app purchase acceptance matrices and keeps the evidence.", width: width),
            "COMMANDS:\n" + table(rows, width: width),
            wrap("Run `matrix help <command>` or `matrix <command> --help` for a command's options; "
                 + "`matrix completion bash|zsh|fish` prints a completion script; `matrix --version` (or `-V`) prints the version.", width: width),
        ].joined(separator: "\n\n") + "\n"
    }

    /// A command's help: usage, what it does, its subcommands, arguments and options.
    /// - Parameter parent: the command whose subcommand `command` is; its shared options are listed too.
    static func command(_ command: CommandSpec, under parent: CommandSpec? = nil, width: Int) -> String {
        let width = max(width, minimumWidth)
        var sections: [String] = []
        let usages = command.usage.isEmpty && !command.subcommands.isEmpty
            ? command.subcommands.flatMap { sub in sub.usage.map { (sub.invocation, $0) } }
            : (command.usage.isEmpty ? [""] : command.usage).map { (command.invocation, $0) }
        sections.append(usages.enumerated().map { index, usage in
            usageLine(usage.0, usage.1, lead: index == 0 ? "USAGE: " : "       ", width: width)
        }.joined(separator: "\n"))
        let discussion = command.discussion.isEmpty ? command.summary + "." : command.discussion
        sections.append(wrap(discussion, width: width))
        if !command.subcommands.isEmpty {
            sections.append("SUBCOMMANDS:\n" + table(command.subcommands.map { ($0.name, $0.summary) }, width: width))
        }
        let described = command.positionals.filter { !$0.help.isEmpty }
        if !described.isEmpty {
            sections.append("ARGUMENTS:\n" + table(described.map { ($0.name, $0.help) }, width: width))
        }
        let options = command.options(under: parent)
        if command.subcommands.isEmpty || options.count > 1 {
            sections.append("OPTIONS:\n" + optionTable(options, width: width))
        }
        for subcommand in command.subcommands where subcommand.options.count > 1 {
            let own = subcommand.options.filter { option in option.key != .help }
            sections.append("\(subcommand.name.uppercased()) OPTIONS:\n" + optionTable(own, width: width))
        }
        return sections.joined(separator: "\n\n") + "\n"
    }

    /// Option lines: `  --out FILE   write to FILE…`.
    static func optionTable(_ options: [OptionSpec], width: Int) -> String {
        table(options.map { option in (option.valueName.map { "\(option.name) \($0)" } ?? option.name, option.help) }, width: width)
    }

    /// Two columns, the second wrapped under itself; a first column too wide for its place puts the second on
    /// the next line.
    static func table(_ rows: [(String, String)], width: Int) -> String {
        let indent = 2
        let widest = rows.map(\.0.count).max() ?? 0
        // The first column takes what leaves the text 40 columns; a longer term has a line of its own.
        var column = indent + min(widest, max(16, width - indent - 2 - 40)) + 2
        // Too narrow for two columns side by side: the text goes under its term.
        if width - column < 24 { column = indent + 4 }
        let textWidth = max(width - column, 20)
        var lines: [String] = []
        for (term, text) in rows {
            let wrapped = words(in: text, width: textWidth)
            let pad = String(repeating: " ", count: column)
            let lead = String(repeating: " ", count: indent) + term
            if lead.count + 2 <= column, let first = wrapped.first {
                lines.append(lead + String(repeating: " ", count: column - lead.count) + first)
                lines += wrapped.dropFirst().map { pad + $0 }
            } else {
                lines.append(lead)
                lines += wrapped.map { pad + $0 }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `USAGE: matrix run MATRIX [options]`, wrapped under its first argument; `[…]` and `(…)` groups are not
    /// broken unless one alone is wider than the room.
    static func usageLine(_ invocation: String, _ arguments: String, lead: String, width: Int) -> String {
        let head = lead + invocation
        var hang = head.count + 1
        if width - hang < 24 { hang = lead.count + 4 }
        let room = width - hang
        let tokens = groups(arguments).flatMap { group in group.count > room ? group.split(separator: " ").map(String.init) : [group] }
        let pad = String(repeating: " ", count: hang)
        var lines: [String] = []
        var line = head
        var empty = false
        for token in tokens {
            if !empty, line.count + 1 + token.count > width {
                lines.append(line)
                line = pad
                empty = true
            }
            line += (empty ? "" : " ") + token
            empty = false
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }

    /// The words of a usage, with each bracketed group one word: `[--clock CLOCK]`.
    static func groups(_ text: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        var depth = 0
        for character in text {
            switch character {
            case "[", "(": depth += 1
            case "]", ")": depth = max(depth - 1, 0)
            default: break
            }
            if character == " ", depth == 0 {
                if !current.isEmpty { tokens.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }

    /// `text` wrapped to `width`: each line a paragraph; a line that starts with spaces keeps them, and one of
    /// the form `  term  text` wraps under its text.
    static func wrap(_ text: String, width: Int) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let line = String(line)
            let indent = line.prefix(while: { $0 == " " }).count
            guard line.count > width else { return line }
            var hang = indent
            var head = String(line.prefix(indent))
            var body = Substring(line.dropFirst(indent))
            if indent > 0, let gap = body.range(of: "  ") {
                // `  term  text`: the text starts after the run of spaces that ends the term.
                let textStart = body[gap.lowerBound...].firstIndex(where: { $0 != " " }) ?? body.endIndex
                let termWidth = indent + body.distance(from: body.startIndex, to: textStart)
                if width - termWidth >= 24 {
                    head = String(line.prefix(termWidth))
                    hang = termWidth
                    body = body[textStart...]
                }
            }
            let wrapped = words(in: String(body), width: max(width - hang, 20))
            let pad = String(repeating: " ", count: hang)
            return ([head + (wrapped.first ?? "")] + wrapped.dropFirst().map { pad + $0 }).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// `text` in lines of at most `width` characters, broken at spaces (a longer word has a line of its own).
    static func words(in text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
