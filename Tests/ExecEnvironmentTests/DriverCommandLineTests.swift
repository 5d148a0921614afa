import Testing
import DriverKit
import ExecEnvironment

@Suite("Driver command lines")
struct DriverCommandLineTests {
    @Test("arguments split on blanks; quotes and backslashes keep what they enclose", arguments: [
        ("python3 driver.py --verbose", ["python3", "driver.py", "--verbose"]),
        ("  a\tb\nc  ", ["a", "b", "c"]),
        (#"'/Applications/My Driver' --name 'x y'"#, ["/Applications/My Driver", "--name", "x y"]),
        (#""say \"hi\" \\ \n" next"#, [#"say "hi" \ \n"#, "next"]),
        (#"a\ b c\'d"#, ["a b", "c'd"]),
        (#"pre"fix suf"fix '' """#, ["prefix suffix", "", ""]),
        (#"'it''s' $HOME ~ * | >"#, ["its", "$HOME", "~", "*", "|", ">"]),
    ] as [(String, [String])])
    func splits(text: String, expected: [String]) throws {
        #expect(try DriverCommandLine.split(text) == expected)
    }

    @Test("unterminated quotes, a trailing backslash and an empty command are refused", arguments: [
        ("'open", "unterminated single quote in the driver command"),
        (#""open \""#, "unterminated double quote in the driver command"),
        (#"driver \"#, "the driver command ends with a backslash"),
        ("   ", "the driver command is empty"),
        ("'' arg", "the driver command is empty"),
    ])
    func refuses(text: String, message: String) {
        #expect(throws: DriverCommandLine.Problem(message: message)) { try DriverCommandLine.split(text) }
    }

    @Test("a name without a slash is looked up in PATH; a missing one is a clear problem")
    func findsExecutables() throws {
        #expect(try DriverCommandLine.executable("sh", path: "/nonexistent:/bin:/usr/bin").path == "/bin/sh")
        #expect(throws: DriverCommandLine.Problem(message: "cannot find the driver no-such-driver in PATH; give its path")) {
            try DriverCommandLine.executable("no-such-driver", path: "/bin")
        }
    }
}
