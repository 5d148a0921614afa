import Foundation

/// The completion scripts of `matrix completion bash|zsh|fish`, made from the command table.
///
/// Each script finds the command path typed so far (`sandbox set`), skipping options and their values, then
/// offers that command's subcommands, options, an option's values, or files. `matrix help` completes command
/// paths.
enum CompletionScript {
    /// What completion knows of one command path.
    struct Node {
        /// `""` for `matrix` itself, `run`, `sandbox set`.
        var path: String
        /// The options offered here.
        var options: [OptionSpec]
        /// The options that take a value anywhere at this level: their values are not command words.
        var valueOptions: [OptionSpec]
        var subcommands: [CommandSpec]
        var positional: Positional.Completion
        var positionalValues: [String]
    }

    /// Every command path: `matrix` itself, each command, each subcommand.
    static func nodes(_ commands: [CommandSpec]) -> [Node] {
        let top = [OptionSpec.help, .flag(.version, "print the version")]
        var nodes = [Node(path: "", options: top, valueOptions: [], subcommands: commands, positional: .nothing, positionalValues: [])]
        for command in commands {
            nodes.append(node(command, parent: nil))
            nodes += command.subcommands.map { node($0, parent: command) }
        }
        return nodes
    }

    private static func node(_ command: CommandSpec, parent: CommandSpec?) -> Node {
        let options = command.options(under: parent)
        let parsed = command.subcommands.isEmpty ? options : command.optionsWithSubcommands
        let positional = command.positionals.first
        return Node(path: command.path.joined(separator: " "), options: options, valueOptions: parsed.filter(\.takesValue),
                    subcommands: command.subcommands, positional: positional?.completion ?? .nothing,
                    positionalValues: positional?.choices?.completions ?? [])
    }

    // MARK: - bash

    static func bash(_ commands: [CommandSpec]) -> String {
        let nodes = nodes(commands)
        let valued = nodes.flatMap { node in node.valueOptions.map { (node.path, $0) } }
        var script = """
            # bash completion for matrix, made by `matrix completion bash`. Load it with
            #   source <(matrix completion bash)
            # in ~/.bashrc, or save it in bash-completion's completions directory as `matrix`.

            _matrix_subcommands() {
                case "$1" in

            """
        for node in nodes where !node.subcommands.isEmpty {
            script += "        \(quoted(node.path))) echo \(quoted(node.subcommands.map(\.name).joined(separator: " "))) ;;\n"
        }
        script += """
                esac
            }

            _matrix_options() {
                case "$1" in

            """
        for node in nodes {
            script += "        \(quoted(node.path))) echo \(quoted(node.options.map(\.name).joined(separator: " "))) ;;\n"
        }
        script += """
                esac
            }

            _matrix_takes_value() {
                case "$1|$2" in

            """
        if !valued.isEmpty {
            script += "        " + valued.map { quoted("\($0.0)|\($0.1.name)") }.joined(separator: "|") + ") return 0 ;;\n"
        }
        script += """
                esac
                return 1
            }

            _matrix_values() {
                case "$1|$2" in

            """
        for (path, option) in valued {
            guard let choices = option.choices else { continue }
            script += "        \(quoted("\(path)|\(option.name)"))) echo \(quoted(choices.completions.joined(separator: " "))) ;;\n"
        }
        script += """
                esac
            }

            _matrix_value_files() {
                case "$1|$2" in

            """
        let fileOptions = valued.filter { $0.1.completesFiles }
        if !fileOptions.isEmpty {
            script += "        " + fileOptions.map { quoted("\($0.0)|\($0.1.name)") }.joined(separator: "|") + ") return 0 ;;\n"
        }
        script += """
                esac
                return 1
            }

            _matrix_positionals() {
                case "$1" in

            """
        for node in nodes where node.positional == .values {
            script += "        \(quoted(node.path))) echo \(quoted(node.positionalValues.joined(separator: " "))) ;;\n"
        }
        script += """
                esac
            }

            _matrix_positional_files() {
                case "$1" in

            """
        let filePaths = nodes.filter { $0.positional == .files }.map { quoted($0.path) }
        if !filePaths.isEmpty { script += "        " + filePaths.joined(separator: "|") + ") return 0 ;;\n" }
        script += #"""
                esac
                return 1
            }

            _matrix_is_subcommand() {
                [[ " $(_matrix_subcommands "$1") " == *" $2 "* ]]
            }

            _matrix_reply_values() {
                COMPREPLY=( $(compgen -W "$(_matrix_values "$1" "$2")" -- "$3") )
                if _matrix_value_files "$1" "$2"; then
                    compopt -o filenames 2>/dev/null
                    COMPREPLY+=( $(compgen -f -- "$3") )
                fi
            }

            _matrix() {
                local cur="${COMP_WORDS[COMP_CWORD]}" cmdpath="" helppath="" word lastopt="" i skip=0 helping=0
                COMPREPLY=()
                for (( i = 1; i < COMP_CWORD; i++ )); do
                    word="${COMP_WORDS[i]}"
                    # `--env=local` is three words where `=` breaks words.
                    [[ $word == "=" ]] && continue
                    if (( skip )); then skip=0; continue; fi
                    case "$word" in
                        -*=*|-) ;;
                        -*) if _matrix_takes_value "$cmdpath" "$word"; then skip=1; lastopt="$word"; fi ;;
                        *)
                            if (( helping )); then
                                _matrix_is_subcommand "$helppath" "$word" && helppath="${helppath:+$helppath }$word"
                            elif _matrix_is_subcommand "$cmdpath" "$word"; then
                                cmdpath="${cmdpath:+$cmdpath }$word"
                                [[ $cmdpath == help ]] && helping=1
                            fi ;;
                    esac
                done
                if (( skip )); then
                    [[ $cur == "=" ]] && cur=""
                    _matrix_reply_values "$cmdpath" "$lastopt" "$cur"
                    return
                fi
                if [[ $cur == --*=* ]]; then
                    local option="${cur%%=*}"
                    _matrix_reply_values "$cmdpath" "$option" "${cur#*=}"
                    COMPREPLY=( "${COMPREPLY[@]/#/$option=}" )
                    return
                fi
                if [[ $cur == -* ]]; then
                    COMPREPLY=( $(compgen -W "$(_matrix_options "$cmdpath")" -- "$cur") )
                    return
                fi
                if (( helping )); then
                    COMPREPLY=( $(compgen -W "$(_matrix_subcommands "$helppath")" -- "$cur") )
                    return
                fi
                local subcommands="$(_matrix_subcommands "$cmdpath")"
                if [[ -n $subcommands ]]; then
                    COMPREPLY=( $(compgen -W "$subcommands" -- "$cur") )
                    return
                fi
                COMPREPLY=( $(compgen -W "$(_matrix_positionals "$cmdpath")" -- "$cur") )
                if _matrix_positional_files "$cmdpath"; then
                    compopt -o filenames 2>/dev/null
                    COMPREPLY+=( $(compgen -f -- "$cur") )
                fi
            }

            complete -F _matrix matrix

            """#
        return script
    }

    // MARK: - zsh

    static func zsh(_ commands: [CommandSpec]) -> String {
        let nodes = nodes(commands)
        let valued = nodes.flatMap { node in node.valueOptions.map { (node.path, $0) } }
        func described(_ name: String, _ text: String) -> String {
            quoted(name.replacingOccurrences(of: ":", with: "\\:") + ":" + text)
        }
        var script = """
            #compdef matrix
            # zsh completion for matrix, made by `matrix completion zsh`. Load it with
            #   source <(matrix completion zsh)
            # in ~/.zshrc after compinit, or save it as _matrix in a directory of $fpath.

            _matrix_subcommands() {
                case "$1" in

            """
        for node in nodes where !node.subcommands.isEmpty {
            let entries = node.subcommands.map { described($0.name, $0.summary) }
            script += "        \(quoted(node.path))) reply=(\(entries.joined(separator: " "))) ;;\n"
        }
        script += """
                    *) reply=() ;;
                esac
            }

            _matrix_options() {
                case "$1" in

            """
        for node in nodes {
            let entries = node.options.map { described($0.name, $0.help) }
            script += "        \(quoted(node.path))) reply=(\(entries.joined(separator: " "))) ;;\n"
        }
        script += """
                    *) reply=() ;;
                esac
            }

            _matrix_takes_value() {
                case "$1|$2" in

            """
        if !valued.isEmpty {
            script += "        " + valued.map { quoted("\($0.0)|\($0.1.name)") }.joined(separator: "|") + ") return 0 ;;\n"
        }
        script += """
                esac
                return 1
            }

            _matrix_values() {
                case "$1|$2" in

            """
        for (path, option) in valued {
            guard let choices = option.choices else { continue }
            script += "        \(quoted("\(path)|\(option.name)"))) reply=(\(choices.completions.map(quoted).joined(separator: " "))) ;;\n"
        }
        script += """
                    *) reply=() ;;
                esac
            }

            _matrix_value_files() {
                case "$1|$2" in

            """
        let fileOptions = valued.filter { $0.1.completesFiles }
        if !fileOptions.isEmpty {
            script += "        " + fileOptions.map { quoted("\($0.0)|\($0.1.name)") }.joined(separator: "|") + ") return 0 ;;\n"
        }
        script += """
                esac
                return 1
            }

            _matrix_positionals() {
                case "$1" in

            """
        for node in nodes where node.positional == .values {
            script += "        \(quoted(node.path))) reply=(\(node.positionalValues.map(quoted).joined(separator: " "))) ;;\n"
        }
        script += """
                    *) reply=() ;;
                esac
            }

            _matrix_positional_files() {
                case "$1" in

            """
        let filePaths = nodes.filter { $0.positional == .files }.map { quoted($0.path) }
        if !filePaths.isEmpty { script += "        " + filePaths.joined(separator: "|") + ") return 0 ;;\n" }
        script += #"""
                esac
                return 1
            }

            _matrix_is_subcommand() {
                local -a reply
                _matrix_subcommands "$1"
                (( ${reply[(I)${(b)2}:*]} ))
            }

            _matrix_complete_values() {
                local -a reply
                _matrix_values "$1" "$2"
                (( ${#reply} )) && compadd -a reply
                _matrix_value_files "$1" "$2" && _files
            }

            _matrix() {
                local cmdpath='' helppath='' word lastopt='' cur=${words[CURRENT]}
                local -i i skip=0 helping=0
                local -a reply
                for (( i = 2; i < CURRENT; i++ )); do
                    word=${words[i]}
                    if (( skip )); then skip=0; continue; fi
                    case $word in
                        -*=*|-) ;;
                        -*) if _matrix_takes_value "$cmdpath" "$word"; then skip=1; lastopt=$word; fi ;;
                        *)
                            if (( helping )); then
                                _matrix_is_subcommand "$helppath" "$word" && helppath=${helppath:+$helppath }$word
                            elif _matrix_is_subcommand "$cmdpath" "$word"; then
                                cmdpath=${cmdpath:+$cmdpath }$word
                                [[ $cmdpath == help ]] && helping=1
                            fi ;;
                    esac
                done
                if (( skip )); then
                    _matrix_complete_values "$cmdpath" "$lastopt"
                    return
                fi
                if [[ $cur == --*=* ]]; then
                    local option=${cur%%=*}
                    compset -P '*='
                    _matrix_complete_values "$cmdpath" "$option"
                    return
                fi
                if [[ $cur == -* ]]; then
                    _matrix_options "$cmdpath"
                    _describe -t options option reply
                    return
                fi
                if (( helping )); then
                    _matrix_subcommands "$helppath"
                    (( ${#reply} )) && _describe -t commands command reply
                    return
                fi
                _matrix_subcommands "$cmdpath"
                if (( ${#reply} )); then
                    _describe -t commands command reply
                    return
                fi
                _matrix_positionals "$cmdpath"
                (( ${#reply} )) && compadd -a reply
                _matrix_positional_files "$cmdpath" && _files
            }

            if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then
                _matrix "$@"
            else
                compdef _matrix matrix
            fi

            """#
        return script
    }

    // MARK: - fish

    static func fish(_ commands: [CommandSpec]) -> String {
        let nodes = nodes(commands)
        let valued = nodes.flatMap { node in node.valueOptions.map { (node.path, $0) } }
        var script = """
            # fish completion for matrix, made by `matrix completion fish`. Load it with
            #   matrix completion fish | source
            # in ~/.config/fish/config.fish, or save it as ~/.config/fish/completions/matrix.fish.

            function __matrix_subcommands --argument-names cmdpath
                switch "$cmdpath"

            """
        for node in nodes where !node.subcommands.isEmpty {
            script += "        case \(fishQuoted(node.path))\n"
            script += "            printf '%s\\n' \(node.subcommands.map { fishQuoted($0.name) }.joined(separator: " "))\n"
        }
        script += """
                end
            end

            function __matrix_takes_value --argument-names cmdpath option
                switch "$cmdpath|$option"

            """
        if !valued.isEmpty {
            script += "        case " + valued.map { fishQuoted("\($0.0)|\($0.1.name)") }.joined(separator: " ") + "\n"
            script += "            return 0\n"
        }
        script += #"""
                end
                return 1
            end

            # The command path typed so far: `sandbox set`; after `help`, `help:` and the path it names.
            function __matrix_path
                set -l tokens (commandline -opc)
                set -e tokens[1]
                set -l cmdpath ''
                set -l helppath ''
                set -l helping 0
                set -l skip 0
                for word in $tokens
                    if test $skip = 1
                        set skip 0
                        continue
                    end
                    switch $word
                        case '-*=*' '-'
                        case '-*'
                            __matrix_takes_value "$cmdpath" $word; and set skip 1
                        case '*'
                            if test $helping = 1
                                if contains -- $word (__matrix_subcommands "$helppath")
                                    set helppath (string trim -- "$helppath $word")
                                end
                            else if contains -- $word (__matrix_subcommands "$cmdpath")
                                set cmdpath (string trim -- "$cmdpath $word")
                                test "$cmdpath" = help; and set helping 1
                            end
                    end
                end
                if test $helping = 1
                    echo "help:$helppath"
                else
                    echo "$cmdpath"
                end
            end

            function __matrix_at
                set -l cmdpath (__matrix_path)
                test "$cmdpath" = "$argv[1]"
            end

            complete -c matrix -f

            """#
        for node in nodes {
            let at = fishQuoted("__matrix_at " + fishQuoted(node.path))
            for subcommand in node.subcommands {
                script += "complete -c matrix -n \(at) -a \(fishQuoted(subcommand.name)) -d \(fishQuoted(subcommand.summary))\n"
            }
            for option in node.options {
                var line = "complete -c matrix -n \(at) -l \(fishQuoted(String(option.name.dropFirst(2))))"
                if option.takesValue {
                    line += option.completesFiles ? " -r -F" : " -x"
                    if let choices = option.choices { line += " -a \(fishQuoted(choices.completions.joined(separator: " ")))" }
                }
                script += line + " -d \(fishQuoted(option.help))\n"
            }
            switch node.positional {
            case .files: script += "complete -c matrix -n \(at) -F\n"
            case .values: script += "complete -c matrix -n \(at) -a \(fishQuoted(node.positionalValues.joined(separator: " ")))\n"
            case .commands, .nothing: break
            }
        }
        // `matrix help CMD [SUBCOMMAND]`.
        for node in nodes where !node.subcommands.isEmpty {
            let at = fishQuoted("__matrix_at " + fishQuoted("help:" + node.path))
            for subcommand in node.subcommands {
                script += "complete -c matrix -n \(at) -a \(fishQuoted(subcommand.name)) -d \(fishQuoted(subcommand.summary))\n"
            }
        }
        return script
    }

    // MARK: - Quoting

    /// `text` in single quotes for bash and zsh.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// `text` in single quotes for fish, where `\` and `'` are escaped inside them.
    static func fishQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
