/// An error response's `error` member: a numeric code and a sentence.
///
/// Codes from -32768 to -32000 are protocol errors, as in JSON-RPC 2.0; positive codes are the environment's.
/// A driver implemented with ``DriverServer`` may throw this from ``Driver`` methods to choose the code.
public struct DriverError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// One of the codes below, or another the driver documents.
    public var code: Int
    /// What went wrong, for people: it ends up in the evidence as the step's reason.
    public var message: String

    /// An error with `code` and `message`.
    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }

    /// `message (code N)`.
    public var description: String { "\(message) (code \(code))" }

    /// The request line is not JSON.
    public static let parseError = -32700
    /// The request is JSON but not a request (no `id` or `method`), or it came before `initialize`.
    public static let invalidRequest = -32600
    /// The driver does not implement the method.
    public static let methodNotFound = -32601
    /// The params do not have the documented shape.
    public static let invalidParams = -32602
    /// The environment could not perform the step or observe its outcome (recorded as `error`).
    public static let environmentError = 1000
    /// The environment itself is unusable (no device, no simulator); on `initialize` the run stops with exit 69.
    public static let environmentUnavailable = 1001

    /// An `environmentError` with `message`.
    public static func environment(_ message: String) -> DriverError {
        DriverError(code: environmentError, message: message)
    }

    /// An `environmentUnavailable` error with `message`.
    public static func unavailable(_ message: String) -> DriverError {
        DriverError(code: environmentUnavailable, message: message)
    }
}
