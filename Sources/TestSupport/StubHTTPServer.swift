import Foundation
import Threading
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An in-process HTTP server for tests: a `URLProtocol` subclass registered on a session's configuration
/// answers every request for the server's host from a handler, and records what was sent.
///
/// Each server has its own random host (`https://stub-UUID.test`), so tests running in parallel never see
/// each other's requests. Works with swift-corelibs-foundation on Linux and with Foundation on Apple
/// platforms.
public final class StubHTTPServer: Sendable {
    /// A request as the server received it.
    public struct Request: Sendable {
        /// `GET`, `POST`, `PATCH`…
        public var method: String
        /// The full URL, query included.
        public var url: URL
        /// The request headers as sent.
        public var headers: [String: String]
        /// The body, if any.
        public var body: Data?

        /// The value of header `name`, any case.
        public func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }

        /// The URL's path, percent-decoded.
        public var path: String { url.path }

        /// The values of query item `name`, in order.
        public func query(_ name: String) -> [String] {
            (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).filter { $0.name == name }.compactMap(\.value)
        }
    }

    /// What the server does with a request.
    public enum Response: Sendable {
        /// Answers with a status, headers and body.
        case answer(status: Int, headers: [String: String], body: Data)
        /// Never answers (until the client gives up or cancels).
        case hang
        /// Fails the request as the network would.
        case fail(URLError.Code)

        /// A JSON answer.
        public static func json(_ status: Int, _ text: String, headers: [String: String] = [:]) -> Response {
            .answer(status: status, headers: headers.merging(["Content-Type": "application/json"]) { first, _ in first }, body: Data(text.utf8))
        }

        /// A JSON answer from an `Encodable` or `JSONSerialization` object.
        public static func json(_ status: Int, object: Any, headers: [String: String] = [:]) -> Response {
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            return .json(status, String(decoding: data, as: UTF8.self), headers: headers)
        }
    }

    /// The base URL requests should go to.
    public let baseURL: URL
    /// A session whose requests for ``baseURL``'s host this server answers.
    public let session: URLSession
    /// The requests received so far and the handler that answers the next one.
    private struct State {
        var recorded: [Request] = []
        var handler: @Sendable (Request, Int) -> Response
    }

    private let state: Locked<State>

    /// A server answering with `handler(request, index)`, `index` counting requests from 0.
    public init(handler: @escaping @Sendable (Request, Int) -> Response) {
        let host = "stub-\(UUID().uuidString.lowercased()).test"
        baseURL = URL(string: "https://\(host)") ?? URL(fileURLWithPath: "/")
        state = Locked(State(handler: handler))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [StubURLProtocol.self]
        session = URLSession(configuration: configuration)
        StubURLProtocol.register(self, host: host)
    }

    /// A server that gives `responses` in order, then repeats the last.
    public convenience init(_ responses: [Response]) {
        self.init { _, index in responses.isEmpty ? .json(500, "{}") : responses[min(index, responses.count - 1)] }
    }

    deinit {
        if let host = baseURL.host { StubURLProtocol.unregister(host: host) }
    }

    /// Every request received so far, in order.
    public var requests: [Request] {
        state.withLock { $0.recorded }
    }

    /// Replaces the handler.
    public func respond(with handler: @escaping @Sendable (Request, Int) -> Response) {
        state.withLock { $0.handler = handler }
    }

    func receive(_ request: Request) -> Response {
        // The handler runs outside the lock: it may ask for ``requests`` or call ``respond(with:)``.
        let (handler, index) = state.withLock { state -> (@Sendable (Request, Int) -> Response, Int) in
            state.recorded.append(request)
            return (state.handler, state.recorded.count - 1)
        }
        return handler(request, index)
    }
}

/// The `URLProtocol` behind ``StubHTTPServer``: finds the server by the request's host.
final class StubURLProtocol: URLProtocol {
    // The URL loading system creates the instances, so servers are found through a process-wide registry.
    private static let servers = Locked<[String: WeakServer]>([:])

    private struct WeakServer: Sendable {
        weak var server: StubHTTPServer?
    }

    static func register(_ server: StubHTTPServer, host: String) {
        servers.withLock { $0[host] = WeakServer(server: server) }
    }

    static func unregister(host: String) {
        _ = servers.withLock { $0.removeValue(forKey: host) }
    }

    private static func server(for host: String?) -> StubHTTPServer? {
        guard let host else { return nil }
        return servers.withLock { $0[host]?.server }
    }

    override class func canInit(with request: URLRequest) -> Bool { true }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        guard let url = request.url, let server = Self.server(for: url.host) else {
            client?.urlProtocol(self, didFailWithError: URLError(.cannotFindHost))
            return
        }
        let recorded = StubHTTPServer.Request(method: request.httpMethod ?? "GET", url: url,
                                              headers: request.allHTTPHeaderFields ?? [:], body: Self.body(of: request))
        switch server.receive(recorded) {
        case .answer(let status, let headers, let body):
            guard let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers) else {
                client?.urlProtocol(self, didFailWithError: URLError(.badServerResponse))
                return
            }
            client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
            client?.urlProtocol(self, didLoad: body)
            client?.urlProtocolDidFinishLoading(self)
        case .hang:
            break
        case .fail(let code):
            client?.urlProtocol(self, didFailWithError: URLError(code))
        }
    }

    override func stopLoading() {}

    /// The body, whether the loading system left it in `httpBody` (Linux) or moved it to a stream (Apple).
    private static func body(of request: URLRequest) -> Data? {
        if let body = request.httpBody { return body }
        guard let stream = request.httpBodyStream else { return nil }
        stream.open()
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while stream.hasBytesAvailable {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            data.append(buffer, count: count)
        }
        return data
    }
}
