import Foundation

/// Splits a `--driver` command into arguments without a shell, and finds its executable.
///
/// Quoting rules (a small subset of the POSIX shell's):
/// - spaces, tabs and newlines outside quotes separate arguments;
/// - `'…'` keeps everything inside literally (no escapes; a single quote cannot appear inside);
/// - `"…"` keeps everything inside literally except `\"` and `\\`, which give `"` and `\`;
/// - outside quotes, `\` makes the next character literal (`\ ` is a space inside an argument);
/// - quotes join with what touches them: `a"b c"d` is one argument, `a b c d` without its spaces removed;
/// - `''` and `""` give an empty argument.
/// Nothing else is special: no variables, `~`, globs, pipes or redirections.
public enum DriverCommandLine {
    /// Why a command line cannot be used.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong and how to fix it.
        public var message: String
        /// The message.
        public var description: String { message }

        /// A problem described by `message`.
        public init(message: String) {
            self.message = message
        }
    }

    /// The arguments of `text`.
    ///
    /// - Throws: ``Problem`` for an unterminated quote, a trailing backslash, or an empty command.
    public static func split(_ text: String) throws(Problem) -> [String] {
        var arguments: [String] = []
        var current = ""
        var inArgument = false
        var characters = text.makeIterator()
        while let character = characters.next() {
            switch character {
            case " ", "\t", "\n", "\r\n", "\r":
                if inArgument {
                    arguments.append(current)
                    current = ""
                    inArgument = false
                }
            case "'":
                inArgument = true
                var closed = false
                while let inner = characters.next() {
                    if inner == "'" { closed = true; break }
                    current.append(inner)
                }
                if !closed { throw Problem(message: "unterminated single quote in the driver command") }
            case "\"":
                inArgument = true
                var closed = false
                while let inner = characters.next() {
                    if inner == "\"" { closed = true; break }
                    if inner == "\\" {
                        guard let escaped = characters.next() else { break }
                        if escaped != "\"" && escaped != "\\" { current.append("\\") }
                        current.append(escaped)
                        continue
                    }
                    current.append(inner)
                }
                if !closed { throw Problem(message: "unterminated double quote in the driver command") }
            case "\\":
                guard let escaped = characters.next() else {
                    throw Problem(message: "the driver command ends with a backslash")
                }
                inArgument = true
                current.append(escaped)
            default:
                inArgument = true
                current.append(character)
            }
        }
        if inArgument { arguments.append(current) }
        guard let first = arguments.first, !first.isEmpty else { throw Problem(message: "the driver command is empty") }
        return arguments
    }

    /// The executable that `name` (the first argument) runs: a path when it contains `/` (relative to the
    /// working directory), else the first executable file of that name in `PATH`.
    ///
    /// - Throws: ``Problem`` when there is no such executable.
    public static func executable(_ name: String, path: String? = ProcessInfo.processInfo.environment["PATH"]) throws(Problem) -> URL {
        if name.contains("/") {
            guard isExecutableFile(name) else {
                throw Problem(message: "the driver \(name) is not an executable file")
            }
            return URL(fileURLWithPath: name)
        }
        let directories = (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":", omittingEmptySubsequences: false)
        for directory in directories {
            let candidate = (directory.isEmpty ? "." : String(directory)) + "/" + name
            if isExecutableFile(candidate) { return URL(fileURLWithPath: candidate) }
        }
        throw Problem(message: "cannot find the driver \(name) in PATH; give its path")
    }

    private static func isExecutableFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && access(path, X_OK) == 0
    }
}
