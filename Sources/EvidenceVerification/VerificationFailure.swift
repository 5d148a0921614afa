/// Why verification could not start on its input: the run directory, archive or trust root itself, not a
/// finding about the evidence (those are in the ``RunVerificationReport``).
public struct VerificationFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem it is; front ends map it to an exit code.
    public enum Reason: Sendable, Hashable {
        /// The input is not what it must be: not a run directory, not an archive, not a certificate (exit 65).
        case invalidInput
        /// A file named on the command line cannot be read (exit 66).
        case unreadableInput
        /// A tool verification needs is missing (`gzip`; exit 69).
        case unavailable
        /// The input cannot be unpacked or written to a temporary folder (exit 74).
        case cannotUnpack
        /// Something embedded in `matrix` is broken (exit 70).
        case internalError
        /// A signal stopped the work; its temporary files are removed (exit 130).
        case interrupted
    }

    public var reason: Reason
    /// A sentence saying what is wrong and, where possible, what to do.
    public var message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { message }
}
