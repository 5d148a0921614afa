import Foundation
import Testing
@testable import MatrixCLI
@testable import TestSupport

/// The command table and what is made from it: `matrix help CMD`, every `--help`, wrapping to the width, the
/// completion scripts, and the errors of enum-valued options and unknown commands.
@Suite("Help and completion from the command table")
struct HelpCompletionTests {
    /// Every command and subcommand, as the words that name it.
    static let paths: [[String]] = CommandTable.commands.flatMap { command in [command.path] + command.subcommands.map(\.path) }

    // MARK: - The table

    @Test("the table declares each command, subcommand and option once; subcommands sit under their command")
    func table() throws {
        let names = CommandTable.commands.map(\.name)
        #expect(Set(names).count == names.count)
        for command in CommandTable.commands {
            #expect(command.path == [command.name])
            #expect(!command.summary.isEmpty)
            for subcommand in command.subcommands {
                #expect(subcommand.path == command.path + [subcommand.name])
            }
        }
        for path in Self.paths {
            let (command, parent) = try CommandTable.resolve(path)
            let options = command.options(under: parent).map(\.name)
            #expect(Set(options).count == options.count, "\(path): \(options)")
            #expect(options.last == "--help", "\(path)")
        }
    }

    @Test("every enum-valued option's help names each of its values")
    func enumHelpNamesValues() throws {
        for path in Self.paths {
            let (command, parent) = try CommandTable.resolve(path)
            for option in command.options(under: parent) {
                guard let choices = option.choices, choices.listedBy == nil else { continue }
                for value in choices.values {
                    #expect(option.help.contains(value), "\(path) \(option.name): \(value) is not in \"\(option.help)\"")
                }
            }
        }
    }

    // MARK: - Help

    @Test("matrix help run prints run's help, as run --help does, not the command list")
    func helpRun() async throws {
        let help = try await CommandHarness.run(["help", "run"])
        #expect(help.status == 0)
        #expect(help.stderr.isEmpty)
        #expect(help.stdout.hasPrefix("USAGE: matrix run MATRIX [options]\n       matrix run [MATRIX] --resume RUN_DIR [--driver CMD] [--jobs N]\n"))
        #expect(help.stdout.contains("  --resume RUN_DIR "))
        #expect(!help.stdout.contains("COMMANDS:"))
        #expect(try await CommandHarness.run(["run", "--help"]).stdout == help.stdout)
        let list = try await CommandHarness.run(["help"])
        #expect(list.status == 0 && list.stdout.contains("COMMANDS:") && list.stdout.contains("  completion SHELL"))
        #expect(try await CommandHarness.run(["--help"]).stdout == list.stdout)
    }

    @Test("matrix help sandbox set prints set's help with the options sandbox shares")
    func helpSubcommand() async throws {
        let help = try await CommandHarness.run(["help", "sandbox", "set"])
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("USAGE: matrix sandbox set ALIAS"))
        #expect(help.stdout.contains("--renewal-rate RATE") && help.stdout.contains("--credentials FILE"))
        #expect(!help.stdout.contains("matrix sandbox clear"))
        #expect(try await CommandHarness.run(["sandbox", "set", "--help"]).stdout == help.stdout)
        #expect(try await CommandHarness.run(["help", "pki", "sign"]).stdout == (try await CommandHarness.run(["pki", "sign", "--help"])).stdout)
    }

    @Test("every command's --help and -h exit 0 with its usage and every option on stdout, as matrix help shows it",
          arguments: paths)
    func everyHelp(path: [String]) async throws {
        let (command, parent) = try CommandTable.resolve(path)
        let help = try await CommandHarness.run(["help"] + path)
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("USAGE: matrix " + path.joined(separator: " ")), "\(help.stdout)")
        let options = command.options(under: parent) + command.subcommands.flatMap(\.options)
        for option in options where option.key != .help || command.subcommands.isEmpty {
            #expect(help.stdout.contains("  " + option.name), "\(path): \(option.name) is not listed")
        }
        for flag in ["--help", "-h"] {
            let result = try await CommandHarness.run(path + [flag])
            #expect(result.status == 0, "\(path) \(flag): \(result.stderr)")
            #expect(result.stderr.isEmpty, "\(path) \(flag): \(result.stderr)")
            #expect(result.stdout == help.stdout, "\(path) \(flag)")
        }
    }

    @Test("help wraps at COLUMNS: no line is wider, and a wide terminal gets longer lines", arguments: [50, 64, 100])
    func wrapsAtColumns(columns: Int) async throws {
        var longest = 0
        for words in [[]] + Self.paths {
            let help = try await CommandHarness.run(["help"] + words, environment: ["COLUMNS": String(columns)])
            #expect(help.status == 0)
            for line in help.stdout.split(separator: "\n") {
                #expect(line.count <= columns, "matrix help \(words.joined(separator: " ")) at \(columns): \(line)")
                longest = max(longest, line.count)
            }
        }
        #expect(longest > columns - 10, "lines fill the width")
        let narrow = try await CommandHarness.run(["verify", "--help"], environment: ["COLUMNS": String(columns)])
        let unwrapped = try await CommandHarness.run(["verify", "--help"], environment: ["COLUMNS": "1000"])
        // The same words, in different lines.
        #expect(narrow.stdout.split(whereSeparator: \.isWhitespace) == unwrapped.stdout.split(whereSeparator: \.isWhitespace))
    }

    @Test("the width is COLUMNS, else the terminal's, else 80")
    func width() throws {
        let file = try #require(FileHandle(forWritingAtPath: "/dev/null"))
        #expect(Console.terminalWidth(environment: ["COLUMNS": "132"], descriptor: file.fileDescriptor) == 132)
        #expect(Console.terminalWidth(environment: [:], descriptor: file.fileDescriptor) == 80)
        #expect(Console.terminalWidth(environment: ["COLUMNS": "wide"], descriptor: file.fileDescriptor) == 80)
        #expect(Console.terminalWidth(environment: ["COLUMNS": "0"], descriptor: file.fileDescriptor) == 80)
    }

    @Test("list items wrap under their text; usage lines keep [...] groups whole")
    func wrapping() {
        let item = HelpText.wrap("  term  one two three four five six seven eight nine ten eleven twelve", width: 40)
        #expect(item == "  term  one two three four five six\n        seven eight nine ten eleven\n        twelve")
        let usage = HelpText.usageLine("matrix plan", "MATRIX --env ENV [--clock CLOCK] [--accounts N]", lead: "USAGE: ", width: 50)
        #expect(usage == "USAGE: matrix plan MATRIX --env ENV\n                   [--clock CLOCK] [--accounts N]")
    }

    // MARK: - Enum values and unknown commands

    @Test("an unknown enum value is a usage error naming the values and the nearest one", arguments: [
        (["validate", "--format", "jsno", "m.json"], #"--format must be one of text, json, not "jsno"; did you mean json?"#, "matrix validate --help"),
        (["report", "r", "--format", "markdwn"], #"--format must be one of junit, markdown, html, json, not "markdwn"; did you mean markdown?"#,
         "matrix report --help"),
        (["verify", "--kind", "transactoin", "x"], #"--kind must be one of transaction, renewalInfo, notification, appTransaction, not "transactoin"; did you mean transaction?"#,
         "matrix verify --help"),
        (["verify", "--environment", "sandbox", "x"], #"--environment must be one of Production, Sandbox, Xcode, LocalTesting, not "sandbox"; did you mean Sandbox?"#,
         "matrix verify --help"),
        (["sandbox", "set", "fresh", "--interrupt-purchases", "of"], #"--interrupt-purchases must be one of on, off, not "of"; did you mean off?"#,
         "matrix sandbox set --help"),
        (["driver", "local", "--app-fault", "pendingUnlock"], #"unknown app fault "pendingUnlock"; did you mean pendingUnlocks? (see `matrix faults`)"#,
         "matrix driver local --help"),
        (["completion", "bsh"], #"SHELL must be one of bash, zsh, fish, not "bsh"; did you mean bash?"#, "matrix completion --help"),
    ] as [([String], String, String)])
    func unknownValue(arguments: [String], message: String, hint: String) async throws {
        let result = try await CommandHarness.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains("error: " + message), "\(result.stderr)")
        #expect(result.stderr.contains("Run `\(hint)` for its options."), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("a clock of no family gets the nearest clock; plan still names its environment's own clocks")
    func clockFamilies() async throws {
        let release = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json").path
        let out = try MatrixBinary.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try await CommandHarness.run(["run", release, "--clock", "sandbx:15", "--out", out.path])
        #expect(run.status == 64)
        #expect(run.stderr.contains(#"error: --clock must be one of real, xcode, xcode:<timeRate>, sandbox, sandbox:<3|5|15|30|60>, testflight, not "sandbx:15"; did you mean sandbox:15?"#),
                "\(run.stderr)")
        #expect(MatrixBinary.runDirectories(under: out).isEmpty)
        let rate = try await CommandHarness.run(["run", release, "--clock", "sandbox:7", "--out", out.path])
        #expect(rate.status == 64 && rate.stderr.contains("is not a Sandbox subscription renewal rate"), "\(rate.stderr)")
        let real = try await CommandHarness.run(["plan", release, "--env", "sandbox", "--clock", "real"])
        #expect(real.status == 64 && real.stderr.contains("--clock real is not a clock of Sandbox"), "\(real.stderr)")
        let upper = try await CommandHarness.run(["plan", release, "--env", "SANDBOX", "--clock", "Sandbox:15"])
        #expect(upper.status == 0, "\(upper.stderr)")
    }

    @Test("an unknown command or subcommand still gets \"did you mean\"", arguments: [
        (["rnu"], #"unknown command "rnu"; did you mean run?"#),
        (["help", "valdate"], #"unknown command "valdate"; did you mean validate?"#),
        (["help", "pki", "sgn"], #"unknown pki subcommand "sgn"; did you mean sign?"#),
        (["pki", "sgn"], #"unknown pki command "sgn"; did you mean sign?"#),
        (["sandbox", "tester"], #"unknown sandbox subcommand "tester"; did you mean testers?"#),
    ] as [([String], String)])
    func unknownCommand(arguments: [String], message: String) async throws {
        let result = try await CommandHarness.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains("error: " + message), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    // MARK: - Completion

    @Test("each completion script names every command, subcommand, run's options and enum values", arguments: CompletionCommand.Shell.allCases)
    func scripts(shell: CompletionCommand.Shell) async throws {
        let result = try await CommandHarness.run(["completion", shell.rawValue])
        #expect(result.status == 0 && result.stderr.isEmpty)
        let script = result.stdout
        for command in CommandTable.commands {
            #expect(script.contains(command.name), "\(shell): \(command.name)")
            for subcommand in command.subcommands { #expect(script.contains(subcommand.name), "\(shell): \(subcommand.path)") }
        }
        for option in RunCommand.spec.options {
            let written = shell == .fish ? "-l '\(option.name.dropFirst(2))'" : option.name
            #expect(script.contains(written), "\(shell): \(option.name)")
        }
        for value in ["local", "testflight", "sandbox:15", "junit", "renewalInfo", "fish"] {
            #expect(script.contains(value), "\(shell): \(value)")
        }
    }

    /// What the bash script offers for `words` with the cursor on the last word.
    static func bashCompletions(_ words: [String], script: URL) throws -> [String] {
        let array = words.map(CompletionScript.quoted).joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["bash", "--norc", "-c",
                             "source \"$1\"; COMP_WORDS=(\(array)); COMP_CWORD=\(words.count - 1); _matrix; printf '%s\\n' \"${COMPREPLY[@]}\"",
                             "bash", script.path]
        process.currentDirectoryURL = script.deletingLastPathComponent()
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    static let hasBash = FileManager.default.isExecutableFile(atPath: "/bin/bash") || FileManager.default.isExecutableFile(atPath: "/usr/bin/bash")

    @Test("the bash script completes commands, subcommands, options and values when sourced in bash", .enabled(if: hasBash))
    func bashCompletes() async throws {
        let directory = try MatrixBinary.scratchDirectory("matrix-completion")
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("matrix.bash")
        try (try await CommandHarness.run(["completion", "bash"])).stdout.write(to: script, atomically: true, encoding: .utf8)
        try "{}".write(to: directory.appendingPathComponent("release.json"), atomically: true, encoding: .utf8)
        let cases: [([String], [String])] = [
            (["matrix", "ru"], ["run"]),
            (["matrix", "p"], ["plan", "pki"]),
            (["matrix", "run", "--e"], ["--env"]),
            (["matrix", "run", "--env", ""], ["local", "exec", "sandbox", "testflight", "server"]),
            (["matrix", "run", "--env", "=", "s"], ["sandbox", "server"]),
            (["matrix", "run", "--clock=testf"], ["--clock=testflight"]),
            (["matrix", "run", "--jobs", "2", "rel"], ["release.json"]),
            (["matrix", "report", "r", "--format", "j"], ["junit", "json"]),
            (["matrix", "sandbox", "s"], ["set"]),
            (["matrix", "sandbox", "--accounts", "a.json", "c"], ["clear"]),
            (["matrix", "sandbox", "set", "x", "--renewal-rate", ""], ["3m", "5m", "15m", "30m", "1h"]),
            (["matrix", "pki", "sign", "--c"], ["--count"]),
            (["matrix", "help", "sa"], ["sandbox"]),
            (["matrix", "help", "sandbox", ""], ["testers", "set", "clear"]),
            (["matrix", "completion", ""], ["bash", "zsh", "fish"]),
            (["matrix", "--v"], ["--version"]),
        ]
        for (words, expected) in cases {
            #expect(try Self.bashCompletions(words, script: script) == expected, "\(words)")
        }
    }

    static let fish = ["/usr/bin/fish", "/usr/local/bin/fish", "/opt/homebrew/bin/fish"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test("the fish script completes when sourced in fish", .enabled(if: fish != nil))
    func fishCompletes() async throws {
        let directory = try MatrixBinary.scratchDirectory("matrix-completion")
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("matrix.fish")
        try (try await CommandHarness.run(["completion", "fish"])).stdout.write(to: script, atomically: true, encoding: .utf8)
        for (line, expected) in [("matrix ru", ["run"]), ("matrix run --env ", ["exec", "local", "sandbox", "server", "testflight"]),
                                 ("matrix sandbox --accounts a.json s", ["set"]), ("matrix help pki ", ["export-root", "sign"])] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try #require(Self.fish))
            process.arguments = ["--no-config", "-c", "source $argv[1]; complete -C $argv[2]", script.path, line]
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let offered = String(decoding: data, as: UTF8.self).split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
            #expect(offered == expected, "\(line)")
        }
    }

    static let zsh = ["/usr/bin/zsh", "/bin/zsh", "/usr/local/bin/zsh"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test("the zsh script parses in zsh", .enabled(if: zsh != nil))
    func zshParses() async throws {
        let directory = try MatrixBinary.scratchDirectory("matrix-completion")
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("_matrix")
        try (try await CommandHarness.run(["completion", "zsh"])).stdout.write(to: script, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Self.zsh))
        process.arguments = ["-n", script.path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}
