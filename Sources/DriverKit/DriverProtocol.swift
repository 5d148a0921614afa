import Foundation

/// The driver protocol: how `matrix run --env exec` talks to an external environment.
///
/// JSON Lines over the driver's stdin (requests from the runner) and stdout (responses and notifications from
/// the driver); stderr is the driver's log. The full specification is `docs/driver-protocol.md`.
public enum DriverProtocol {
    /// The protocol version this package speaks; `initialize` carries it both ways.
    public static let version = 1

    /// The longest line either side accepts, in bytes (16 MiB): observations carry signed data, but nothing
    /// legitimate comes close.
    public static let maximumLineBytes = 16 * 1024 * 1024

    /// The encoder for protocol lines: sorted keys, unescaped slashes, no pretty printing (one line).
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Encodes a message as one protocol line, newline included.
    ///
    /// - Throws: `EncodingError` when a value cannot be encoded (a non-finite number, for instance).
    public static func line(_ message: some Encodable) throws -> [UInt8] {
        var bytes = Array(try makeEncoder().encode(message))
        bytes.append(0x0A)
        return bytes
    }
}

/// The methods a runner calls, in the order it calls them.
public enum DriverMethod: String, Sendable, Hashable, Codable, CaseIterable {
    /// The handshake: the matrix goes to the driver; the environment's name, actions and metadata come back.
    case initialize
    /// Fresh state for one case.
    case reset
    /// One step.
    case perform
    /// The run is over; the driver answers, then exits.
    case shutdown
}

/// The notifications a driver may write while a request is in progress.
public enum DriverNotification: String, Sendable, Hashable, Codable, CaseIterable {
    /// "Still working; wait `waitMs` more before giving up" (see ``ProgressParams``).
    case progress
}
