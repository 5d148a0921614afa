import Foundation
import EvidenceStore
/// Exit codes, as README and docs/architecture.md list them (sysexits.h values where one fits).
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
public struct CommandFailure: Error, Sendable {
    public var message: String
    public var code: ExitCode
    /// Print the usage after the message (for usage errors).
    public var showUsage: Bool

    public init(_ message: String, code: ExitCode, showUsage: Bool = false) {
        self.message = message
        self.code = code
        self.showUsage = showUsage
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
