import EvidenceStore
import EvidenceVerification
import Foundation
import MatrixJSON
/// Exit codes, as docs/cli.md and docs/architecture.md list them (sysexits.h values where one fits).
public enum ExitCode: Int32, Sendable {
    /// Every step passed.
    case success = 0
    /// Some step failed (or errored, or was blocked).
    case failure = 1
    /// The command line is wrong.
    case usage = 64
    /// The matrix, catalog or another input file is invalid.
    case dataError = 65
    /// The file named on the command line cannot be read.
    case noInput = 66
    /// The environment is unavailable.
    case unavailable = 69
    /// A bug in `matrix`.
    case software = 70
    /// Evidence cannot be written.
    case ioError = 74
    /// Interrupted by a signal; the evidence written so far is kept.
    case interrupted = 130
}

/// An error that ends a command with a message and an exit code. Only `main` exits.
///
/// The message and the hint are one line each when printed: a line break in a value they quote (a path, a
/// driver's reply) is shown as `\u{A}` (``TerminalText``), so no value can start a line of its own and pass for
/// one of `matrix`'s.
public struct CommandFailure: Error, Sendable {
    public var message: String
    /// What to do next, printed on the line after the message.
    public var hint: String?
    public var code: ExitCode
    /// Print the usage after the message (for usage errors).
    public var showUsage: Bool

    public init(_ message: String, hint: String? = nil, code: ExitCode, showUsage: Bool = false) {
        self.message = message
        self.hint = hint
        self.code = code
        self.showUsage = showUsage
    }

    /// The message and the hint as printed after `error: `, each on one line.
    public var printed: String {
        ([message] + (hint.map { [$0] } ?? [])).map { TerminalText.visible($0) }.joined(separator: "\n")
    }

    public static func usage(_ message: String) -> CommandFailure {
        CommandFailure(message, code: .usage, showUsage: true)
    }

    /// Standard output cannot be written. Exit 74; no message when its reader went away (`matrix … | head`),
    /// which is the user's choice, not a fault.
    static func standardOutput(errno number: Int32) -> CommandFailure {
        CommandFailure(number == EPIPE ? "" : "cannot write to standard output: \(String(cString: strerror(number)))", code: .ioError)
    }
}

extension CommandFailure {
    /// The failure of a verification that could not start, with the exit code its reason maps to.
    init(_ failure: VerificationFailure) {
        let code: ExitCode = switch failure.reason {
        case .invalidInput: .dataError
        case .unreadableInput: .noInput
        case .unavailable: .unavailable
        case .cannotUnpack: .ioError
        case .internalError: .software
        case .interrupted: .interrupted
        }
        self.init(failure.message, code: code)
    }
}
