import MatrixJSON

/// Why credentials (or another private file such as an accounts file) could not be loaded.
///
/// Messages name files and settings, never their secret contents.
public struct CredentialsError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for choosing an exit code.
    public enum Kind: String, Sendable, Hashable {
        /// Nothing is configured: no `--credentials` file and no environment variables.
        case missing
        /// A file cannot be read (missing, a directory, unreadable, too large).
        case unreadable
        /// A file or setting is present but wrong (bad JSON, missing field, not a P-256 key).
        case invalid
        /// The file lies inside a git work tree, where it could be committed.
        case insideRepository
    }

    /// What went wrong.
    public var kind: Kind
    /// A sentence that says what is wrong and what to do.
    public var message: String
    /// Located problems in a JSON file (file, line, column, JSON Pointer), when there are some.
    public var diagnostics: [Diagnostic]

    /// Creates an error.
    public init(_ kind: Kind, _ message: String, diagnostics: [Diagnostic] = []) {
        self.kind = kind
        self.message = message
        self.diagnostics = diagnostics
    }

    /// The message, followed by each diagnostic rendered compiler-style.
    public var description: String {
        ([message] + diagnostics.map(\.rendered)).joined(separator: "\n")
    }
}
