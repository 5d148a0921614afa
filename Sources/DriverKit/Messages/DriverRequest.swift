import Foundation
import MatrixJSON

/// One request line from the runner: `{"id": 1, "method": "initialize", "params": {…}}`.
///
/// `id` is a positive integer, unique within one driver process; the response echoes it.
public struct DriverRequest: Sendable, Hashable, Encodable {
    /// Positive, increasing, unique within one driver process.
    public var id: Int
    /// The method and its params.
    public var call: DriverCall

    /// Request `id` for `call`.
    public init(id: Int, call: DriverCall) {
        self.id = id
        self.call = call
    }

    private enum CodingKeys: String, CodingKey {
        case id, method, params
    }

    /// Writes `{"id", "method", "params"}` (`{}` params for `shutdown`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(call.method, forKey: .method)
        switch call {
        case .initialize(let params): try container.encode(params, forKey: .params)
        case .reset(let params): try container.encode(params, forKey: .params)
        case .perform(let params): try container.encode(params, forKey: .params)
        case .shutdown, .unknown: try container.encode([String: String](), forKey: .params)
        }
    }

    /// Reads one request line.
    ///
    /// - Returns: the request, or the error response a driver should send: `parseError` for a line that is not
    ///   JSON, `invalidRequest` without a numeric `id` or a `method`, or for a line that names a member twice
    ///   (``StrictJSON``), `invalidParams` for params of the wrong shape. The `id` is the request's when it could
    ///   be read.
    public static func parse(_ line: some Collection<UInt8>) -> Result<DriverRequest, DriverRequestError> {
        let data = Data(line)
        let envelope: Envelope
        do {
            envelope = try StrictJSON.decode(Envelope.self, from: data)
        } catch {
            let message = switch error.kind {
            case .invalidJSON: "the request line is not JSON"
            case .duplicateKey: "the request repeats a member, which readers resolve differently: \(error)"
            case .wrongShape: "a request is an object with a numeric \"id\" and a \"method\""
            }
            let code = if case .invalidJSON = error.kind { DriverError.parseError } else { DriverError.invalidRequest }
            return .failure(DriverRequestError(id: nil, error: DriverError(code: code, message: message)))
        }
        guard let id = envelope.id, let method = envelope.method else {
            return .failure(DriverRequestError(id: envelope.id, error: DriverError(
                code: DriverError.invalidRequest, message: "a request has a numeric \"id\" and a \"method\"")))
        }
        do throws(StrictJSONError) {
            let call: DriverCall
            switch DriverMethod(rawValue: method) {
            case .initialize: call = .initialize(try StrictJSON.decode(Params<InitializeParams>.self, from: data).params)
            case .reset: call = .reset(try StrictJSON.decode(Params<ResetParams>.self, from: data).params)
            case .perform: call = .perform(try StrictJSON.decode(Params<PerformParams>.self, from: data).params)
            case .shutdown: call = .shutdown
            case nil: call = .unknown(method)
            }
            return .success(DriverRequest(id: id, call: call))
        } catch {
            return .failure(DriverRequestError(id: id, error: DriverError(
                code: DriverError.invalidParams, message: "the params of \(method) do not have the documented shape: \(error)")))
        }
    }

    private struct Envelope: Decodable {
        var id: Int?
        var method: String?
    }

    private struct Params<Value: Decodable>: Decodable {
        var params: Value
    }
}

/// What a request asks for, with its params.
public enum DriverCall: Sendable, Hashable {
    case initialize(InitializeParams)
    case reset(ResetParams)
    case perform(PerformParams)
    case shutdown
    /// A method this version of the protocol does not define; answer `methodNotFound`.
    case unknown(String)

    /// The `method` string on the wire.
    public var method: String {
        switch self {
        case .initialize: DriverMethod.initialize.rawValue
        case .reset: DriverMethod.reset.rawValue
        case .perform: DriverMethod.perform.rawValue
        case .shutdown: DriverMethod.shutdown.rawValue
        case .unknown(let method): method
        }
    }
}

/// A request line that could not be read, with the error response it deserves.
public struct DriverRequestError: Error, Sendable, Hashable {
    /// The request's `id`, when it could be read (`null` in the response otherwise).
    public var id: Int?
    /// The error response to send.
    public var error: DriverError
}
