import Foundation
import Threading

/// A small HTTP/1.1 server on 127.0.0.1: one request per connection (`Connection: close`), everything it reads
/// bounded by ``HTTPLimits``, at most ``maximumConnections`` connections at once, a synchronous handler per
/// request.
///
/// Every client on 127.0.0.1 has the same address, so clients are told apart only by their connections, and no
/// connection may hold a slot it does not use: the request's head must arrive within
/// ``HTTPLimits/headTimeout`` (else 408), and when every slot is taken a new connection takes the slot of the
/// oldest connection still sending its request, which is closed without an answer. Only when every slot's
/// request is being answered does a new connection get 503. A client that opens connections and sends half a
/// request therefore delays no one who sends a whole one.
///
/// It serves the loopback App Store Server API and, in tests, plays a team's backend. It never listens on
/// another address.
public final class LoopbackHTTPServer: Sendable {
    /// The port it listens on.
    public let port: UInt16
    /// Connections served at once (see the type's documentation for who gives way).
    public let maximumConnections: Int
    private let limits: HTTPLimits
    private let handler: @Sendable (HTTPRequest) -> HTTPResponse
    private let state = Locked(State())

    private struct Connection {
        var socket: LoopbackSocket
        var accepted: ContinuousClock.Instant
        /// Its request is still being read: it may be closed for a newer connection.
        var reading = true
        /// It was closed for a newer connection and its thread has not ended yet.
        var evicted = false
    }

    private struct State {
        var stopped = false
        var nextID = 0
        var connections: [Int: Connection] = [:]
        /// Connections closed for newer ones, over the whole life of the server.
        var evictions = 0
    }

    private init(port: UInt16, limits: HTTPLimits, maximumConnections: Int, handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        self.port = port
        self.limits = limits
        self.maximumConnections = maximumConnections
        self.handler = handler
    }

    /// Listens on 127.0.0.1:`port` (0: a free port) and serves every request with `handler` until ``stop()``.
    ///
    /// - Throws: ``HTTPWireFailure`` when the port cannot be bound (in use, or not allowed).
    public static func start(port: UInt16 = 0, limits: HTTPLimits = HTTPLimits(timeout: .seconds(10)), maximumConnections: Int = 32,
                             handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws(HTTPWireFailure) -> LoopbackHTTPServer {
        let listening: (socket: LoopbackSocket, port: UInt16)
        do {
            listening = try LoopbackSocket.listen(port: port)
        } catch {
            throw HTTPWireFailure(error)
        }
        let server = LoopbackHTTPServer(port: listening.port, limits: limits, maximumConnections: max(1, maximumConnections), handler: handler)
        let listener = listening.socket
        LoopbackThread.start { server.acceptLoop(listener) }
        return server
    }

    /// Stops accepting connections (within a fifth of a second); requests being served finish.
    public func stop() {
        state.withLock { $0.stopped = true }
    }

    /// Connections being served now (those closed for newer ones included until their threads end).
    public var activeConnections: Int { state.withLock { $0.connections.count } }

    /// Connections closed, over the server's life, to make room for newer ones while still sending their request.
    public var evictedConnections: Int { state.withLock { $0.evictions } }

    private enum Admission {
        case admitted(Int)
        case busy
    }

    private func acceptLoop(_ listener: LoopbackSocket) {
        while !state.withLock({ $0.stopped }) {
            guard let accepted = try? listener.accept(until: .now + .milliseconds(200)) else { continue }
            let now = ContinuousClock.now
            let admission = state.withLock { state -> Admission in
                let live = state.connections.values.filter { !$0.evicted }.count
                if live >= maximumConnections {
                    // The oldest connection still sending its request gives way; none does when every slot is answering.
                    guard let (id, oldest) = state.connections.filter({ $0.value.reading && !$0.value.evicted })
                        .min(by: { $0.value.accepted < $1.value.accepted }) else { return .busy }
                    oldest.socket.shutdownBoth()
                    state.connections[id]?.evicted = true
                    state.evictions += 1
                }
                let id = state.nextID
                state.nextID += 1
                state.connections[id] = Connection(socket: accepted, accepted: now)
                return .admitted(id)
            }
            let deadline = now + limits.timeout
            guard case .admitted(let id) = admission else {
                let busy = HTTPResponse(status: 503, headers: [("Retry-After", "1")], body: Array("too many connections\n".utf8))
                try? accepted.write(Self.bytes(of: busy), until: min(deadline, now + .seconds(1)))
                continue
            }
            LoopbackThread.start { [self] in
                serve(accepted, id: id, deadline: deadline, headDeadline: now + limits.headTimeout)
                state.withLock { _ = $0.connections.removeValue(forKey: id) }
            }
        }
    }

    private func serve(_ socket: LoopbackSocket, id: Int, deadline: ContinuousClock.Instant, headDeadline: ContinuousClock.Instant) {
        var reader = HTTPWireReader(socket: socket, limits: limits, deadline: deadline, headDeadline: headDeadline)
        let response: HTTPResponse
        do {
            let request = try Self.readRequest(&reader)
            // Read whole: from now on the connection keeps its slot. One closed a moment ago is not answered.
            let evicted = state.withLock { state -> Bool in
                state.connections[id]?.reading = false
                return state.connections[id]?.evicted ?? true
            }
            if evicted { return }
            response = handler(request)
        } catch {
            if state.withLock({ $0.connections[id]?.evicted ?? true }) { return }
            switch error {
            case .closedBeforeMessage, .socket(.reset), .socket(.refused): return
            case .socket(.timedOut): response = Self.plain(408, "the request did not arrive within the time limit")
            case .tooLarge(let text): response = Self.plain(text.hasPrefix("the head") || text.contains("header") ? 431 : 413, text)
            case .malformed(let text): response = Self.plain(text.hasPrefix("unsupported Transfer-Encoding") ? 501 : 400, text)
            case .closedInMessage, .socket(.system), .cancelled: return
            }
        }
        try? reader.write(Self.bytes(of: response))
    }

    static func readRequest(_ reader: inout HTTPWireReader) throws(HTTPWireFailure) -> HTTPRequest {
        let lines = try reader.readHead()
        let start = lines[0].split(separator: " ", omittingEmptySubsequences: false)
        guard start.count == 3, !start[0].isEmpty, start[0].unicodeScalars.allSatisfy(HTTPWire.isTokenCharacter),
              start[1].hasPrefix("/"), start[2] == "HTTP/1.1" || start[2] == "HTTP/1.0" else {
            throw .malformed("the request line is not METHOD /path HTTP/1.1: \(HTTPWire.excerpt(lines[0]))")
        }
        let fields = try HTTPWire.fields(lines[1...])
        var request = HTTPRequest(method: String(start[0]), target: String(start[1]), headers: fields)
        if request.header("Expect")?.lowercased() == "100-continue" {
            try reader.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }
        switch try HTTPWire.framing(fields, isResponse: false) {
        case .length(let count): request.body = try reader.readBody(length: count)
        case .chunked: request.body = try reader.readChunkedBody()
        case .toEnd: request.body = []
        }
        return request
    }

    static func plain(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array((text + "\n").utf8))
    }

    static func bytes(of response: HTTPResponse) -> [UInt8] {
        var fields = response.headers.filter {
            $0.name.caseInsensitiveCompare("Content-Length") != .orderedSame && $0.name.caseInsensitiveCompare("Connection") != .orderedSame
        }
        fields.append(("Content-Length", String(response.body.count)))
        fields.append(("Connection", "close"))
        return HTTPWire.head("HTTP/1.1 \(response.status) \(HTTPResponse.reason(response.status))", fields) + response.body
    }
}
