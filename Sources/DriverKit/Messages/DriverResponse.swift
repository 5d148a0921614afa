import Foundation
import MatrixJSON

/// One response line from a driver: `{"id": 1, "result": {…}}` or `{"id": 1, "error": {"code": …, "message": …}}`.
public struct DriverResponse: Sendable, Hashable {
    /// The `id` of the request answered; `nil` only for an error about a request whose id was unreadable.
    public var id: Int?
    /// The result or the error.
    public var outcome: Outcome

    /// A result, kept as the response line until the caller knows its type, or an error.
    public enum Outcome: Sendable, Hashable {
        /// The whole response line; decode it with ``DriverResponse/result(as:)``.
        case result(Data)
        case error(DriverError)
    }

    /// A response to request `id`.
    public init(id: Int?, outcome: Outcome) {
        self.id = id
        self.outcome = outcome
    }

    /// The result decoded as `type`.
    ///
    /// - Throws: ``DriverError`` (the response's error) for an error response; a `StrictJSONError`, located,
    ///   when the result does not have the shape of `type` or the line names a member twice.
    public func result<Result: Decodable>(as type: Result.Type) throws -> Result {
        switch outcome {
        case .error(let error): throw error
        case .result(let line): return try StrictJSON.decode(ResultEnvelope<Result>.self, from: line).result
        }
    }

    /// The line answering request `id` with `result`, newline included.
    ///
    /// - Throws: `EncodingError` when `result` cannot be encoded.
    public static func line(id: Int, result: some Encodable) throws -> [UInt8] {
        try DriverProtocol.line(ResultEnvelope(id: id, result: result))
    }

    /// The line answering request `id` (or an unreadable request, `nil`) with `error`, newline included.
    public static func line(id: Int?, error: DriverError) -> [UInt8] {
        // Two strings and two integers always encode; the fallback is never used but avoids a force unwrap.
        (try? DriverProtocol.line(ErrorEnvelope(id: id, error: error)))
            ?? Array(#"{"error":{"code":-32603,"message":"unencodable error"},"id":null}"#.utf8) + [0x0A]
    }

    struct ResultEnvelope<Value> {
        var id: Int
        var result: Value
    }

    struct ErrorEnvelope: Encodable {
        var id: Int?
        var error: DriverError

        private enum CodingKeys: String, CodingKey { case id, error }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)  // `null` when unknown, as the protocol says
            try container.encode(error, forKey: .error)
        }
    }
}

extension DriverResponse.ResultEnvelope: Encodable where Value: Encodable {}
extension DriverResponse.ResultEnvelope: Decodable where Value: Decodable {}

/// One line a driver wrote on stdout, read by the runner: a response or a notification.
public enum DriverOutput: Sendable, Hashable {
    case response(DriverResponse)
    /// `{"method": "progress", "params": {…}}`: the driver is still working on a request.
    case progress(ProgressParams)
    /// A notification this protocol version does not define; receivers ignore it (protocol §13).
    case otherNotification(method: String)

    /// Reads one line a driver wrote.
    ///
    /// - Throws: ``DriverOutputError`` when the line is not JSON, names a member twice (``StrictJSON``), or is
    ///   JSON but neither a response (an `id` with exactly one of `result` and `error`) nor a notification.
    public static func parse(_ line: some Collection<UInt8>) throws(DriverOutputError) -> DriverOutput {
        let data = Data(line)
        let envelope: Envelope
        do {
            envelope = try StrictJSON.decode(Envelope.self, from: data)
        } catch where error.isDuplicateKey {
            // {"id":1,"id":2,…} answers one request to one reader and another to the next.
            throw DriverOutputError(reason: "it repeats a member, which readers resolve differently: \(error)")
        } catch {
            throw DriverOutputError(reason: "it is not a JSON object with the protocol's members")
        }
        if let method = envelope.method {
            guard envelope.id == nil, !envelope.hasResult, envelope.error == nil else {
                throw DriverOutputError(reason: "a notification has a \"method\" and no \"id\", \"result\" or \"error\"")
            }
            guard DriverNotification(rawValue: method) == .progress else { return .otherNotification(method: method) }
            guard let params = envelope.progress else {
                throw DriverOutputError(reason: "a progress notification needs \"params\" with the \"id\" of the request in flight")
            }
            return .progress(params)
        }
        switch (envelope.hasResult, envelope.error) {
        case (true, nil):
            guard let id = envelope.id else { throw DriverOutputError(reason: "a result needs the \"id\" of its request") }
            return .response(DriverResponse(id: id, outcome: .result(data)))
        case (false, let error?):
            return .response(DriverResponse(id: envelope.id, outcome: .error(error)))
        case (true, _?):
            throw DriverOutputError(reason: "a response has \"result\" or \"error\", not both")
        case (false, nil):
            throw DriverOutputError(reason: "a response needs \"result\" or \"error\"")
        }
    }

    private struct Envelope: Decodable {
        var id: Int?
        var method: String?
        var hasResult: Bool
        var error: DriverError?
        var progress: ProgressParams?

        private enum CodingKeys: String, CodingKey { case id, method, result, error, params }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decodeIfPresent(Int.self, forKey: .id)
            method = try container.decodeIfPresent(String.self, forKey: .method)
            hasResult = container.contains(.result)
            error = try container.decodeIfPresent(DriverError.self, forKey: .error)
            progress = method == DriverNotification.progress.rawValue
                ? try container.decodeIfPresent(ProgressParams.self, forKey: .params) : nil
        }
    }
}

/// Why a line a driver wrote is not a protocol message.
public struct DriverOutputError: Error, Sendable, Hashable {
    /// A sentence fragment: "it is not a JSON object with the protocol's members".
    public var reason: String
}
