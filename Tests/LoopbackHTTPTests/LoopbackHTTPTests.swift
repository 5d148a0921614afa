import Foundation
import Testing
@testable import LoopbackHTTP

@Suite("The loopback HTTP/1.1 server and client")
struct LoopbackHTTPTests {
    static let limits = HTTPLimits(headerBytes: 4096, bodyBytes: 1024, timeout: .seconds(5))

    @Test("a POST with a body reaches the handler, and its answer comes back with status, headers and body")
    func roundTrip() async throws {
        let server = try LoopbackHTTPServer.start { request in
            HTTPResponse(status: 201, headers: [("X-Echo", request.header("x-token") ?? "none")],
                         body: Array("\(request.method) \(request.path) \(request.query("a")) \(request.text)".utf8))
        }
        defer { server.stop() }
        let answer = await LoopbackHTTPClient.send(
            HTTPRequest(method: "POST", target: "/notify?a=1&a=two%20words", headers: [("X-Token", "t")], body: Array("hello".utf8)),
            port: server.port, limits: Self.limits)
        let response = try answer.get()
        #expect(response.status == 201)
        #expect(response.header("x-echo") == "t")
        #expect(response.text == #"POST /notify ["1", "two words"] hello"#)
    }

    @Test("nothing listening is a refused connection, not a hang")
    func refused() async throws {
        // A port that was free a moment ago and is bound by nothing now: bound, then closed at once.
        let free = try LoopbackSocket.listen(port: 0).port
        let answer = await LoopbackHTTPClient.send(HTTPRequest(method: "GET", target: "/"), port: free, limits: Self.limits)
        #expect(answer == .failure(.socket(.refused)))
    }

    @Test("a response body over the limit is refused, and so is a head over the limit")
    func bounded() async throws {
        let server = try LoopbackHTTPServer.start { request in
            request.path == "/big" ? HTTPResponse(status: 200, body: Array(repeating: 65, count: 5000))
                : HTTPResponse(status: 200, headers: [("X-Long", String(repeating: "a", count: 5000))])
        }
        defer { server.stop() }
        let big = await LoopbackHTTPClient.send(HTTPRequest(method: "GET", target: "/big"), port: server.port, limits: Self.limits)
        #expect(big == .failure(.tooLarge("the body is 5000 bytes, over the limit of 1024")))
        let head = await LoopbackHTTPClient.send(HTTPRequest(method: "GET", target: "/head"), port: server.port, limits: Self.limits)
        #expect(head == .failure(.tooLarge("the head is over 4096 bytes")))
    }

    @Test("the server answers a request over its limits with 413 and never calls the handler")
    func serverLimits() async throws {
        let server = try LoopbackHTTPServer.start(limits: Self.limits) { _ in HTTPResponse(status: 200) }
        defer { server.stop() }
        let answer = await LoopbackHTTPClient.send(HTTPRequest(method: "POST", target: "/", body: Array(repeating: 1, count: 2000)),
                                                   port: server.port, limits: HTTPLimits(timeout: .seconds(5)))
        #expect(try answer.get().status == 413)
    }

    @Test("chunked bodies are read in both directions, and Content-Length with Transfer-Encoding is refused")
    func chunked() throws {
        let raw = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n".utf8)
        #expect(try Self.parseResponse(raw).text == "hello world")
        let smuggled = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nabc".utf8)
        #expect(throws: HTTPWireFailure.malformed("both Transfer-Encoding and Content-Length")) { try Self.parseResponse(smuggled) }
        let badStatus = Array("HTTP/1.1 2000 OK\r\n\r\n".utf8)
        #expect(throws: HTTPWireFailure.malformed("the status line is not HTTP/1.1 NNN: HTTP/1.1 2000 OK")) { try Self.parseResponse(badStatus) }
        let toEnd = Array("HTTP/1.1 500 Oops\r\nX: y\r\n\r\ndown".utf8)
        let parsed = try Self.parseResponse(toEnd)
        #expect(parsed.status == 500 && parsed.text == "down")
    }

    @Test("a signed, spaced or overlong chunk size is refused as malformed in both directions, never read as a length",
          arguments: ["-1", "+1", "-0", "0x5", "1 2", "FFFFFFFFF", ""])
    func chunkSizes(_ size: String) throws {
        let expected = HTTPWireFailure.malformed("a chunk size is not 1 to 8 hexadecimal digits: \(size)")
        let response = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\(size)\r\nhello\r\n0\r\n\r\n".utf8)
        #expect(throws: expected) { try Self.parseResponse(response) }
        let request = Array("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n\(size)\r\nhello\r\n0\r\n\r\n".utf8)
        #expect(throws: expected) { try Self.parseRequest(request) }
    }

    @Test("a chunk of the largest size the digits allow is refused by the body limit, without overflow")
    func largestChunk() throws {
        let response = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nFFFFFFFF\r\n".utf8)
        #expect(throws: HTTPWireFailure.tooLarge("the body is over the limit of 1024 bytes")) { try Self.parseResponse(response) }
    }

    @Test("a Content-Length with a sign or a space is refused, in both directions", arguments: ["+3", "-3", " 3 3", "3a"])
    func signedLength(_ length: String) throws {
        let response = Array("HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\n\r\nabc".utf8)
        #expect(throws: HTTPWireFailure.malformed("Content-Length is not one number: \(length.trimmingCharacters(in: .whitespaces))")) {
            try Self.parseResponse(response)
        }
        let request = Array("POST / HTTP/1.1\r\nContent-Length: \(length)\r\n\r\nabc".utf8)
        #expect(throws: HTTPWireFailure.malformed("Content-Length is not one number: \(length.trimmingCharacters(in: .whitespaces))")) {
            try Self.parseRequest(request)
        }
    }

    @Test("an answer in another HTTP version than 1.1 is malformed, so a notification it answers is INVALID_RESPONSE",
          arguments: ["HTTP/1.0 200 OK", "HTTP/2 200", "HTTP/1.1 +20 OK", "http/1.1 200 OK"])
    func strictVersion(_ statusLine: String) throws {
        let raw = Array("\(statusLine)\r\nContent-Length: 0\r\n\r\n".utf8)
        #expect(throws: HTTPWireFailure.malformed("the status line is not HTTP/1.1 NNN: \(statusLine)")) { try Self.parseResponse(raw) }
    }

    @Test("trailers after the last chunk are held to the head's limit")
    func boundedTrailers() throws {
        let trailers = String(repeating: "X-T: \(String(repeating: "a", count: 100))\r\n", count: 50)
        let response = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\(trailers)\r\n".utf8)
        #expect(throws: HTTPWireFailure.tooLarge("the trailers are over 4096 bytes")) { try Self.parseResponse(response) }
    }

    @Test("connections that send half a request line and wait do not keep a whole request from being answered")
    func halfRequestsGiveWay() async throws {
        let server = try LoopbackHTTPServer.start(limits: HTTPLimits(timeout: .seconds(60), headTimeout: .seconds(60)), maximumConnections: 4) { _ in
            HTTPResponse(status: 200)
        }
        defer { server.stop() }
        var stalled: [LoopbackSocket] = []
        for _ in 0..<4 {
            let socket = try LoopbackSocket.connect(port: server.port, deadline: .now + .seconds(2))
            try socket.write(Array("GET / HT".utf8), until: .now + .seconds(2))
            stalled.append(socket)
        }
        // The server has taken all four (they are its only connections, and each waits for the rest of its head).
        let deadline = ContinuousClock.now + .seconds(30)
        while server.activeConnections < 4, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(server.activeConnections == 4)
        let answer = await LoopbackHTTPClient.send(HTTPRequest(method: "GET", target: "/"), port: server.port, limits: HTTPLimits(timeout: .seconds(30)))
        #expect(try answer.get().status == 200)
        #expect(server.evictedConnections == 1)
        // The connection that gave way was closed without an answer.
        let closed = try stalled[0].read(maximum: 100, until: .now + .seconds(10))
        #expect(closed.isEmpty)
    }

    @Test("a request head that does not arrive within the head deadline gets 408, long before the exchange's time limit")
    func headDeadline() async throws {
        let server = try LoopbackHTTPServer.start(limits: HTTPLimits(timeout: .seconds(30), headTimeout: .milliseconds(100))) { _ in HTTPResponse(status: 200) }
        defer { server.stop() }
        let socket = try LoopbackSocket.connect(port: server.port, deadline: .now + .seconds(2))
        let started = ContinuousClock.now
        try socket.write(Array("GET / HTTP/1.1\r\nHost: x\r\n".utf8), until: .now + .seconds(2))
        var answer: [UInt8] = []
        while true {
            let bytes = try socket.read(maximum: 1024, until: .now + .seconds(5))
            if bytes.isEmpty { break }
            answer += bytes
        }
        #expect(String(decoding: answer, as: UTF8.self).hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
        // 100 ms on an idle machine; the exchange's own limit is 30 s.
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test("a connection closed before a response, or in the middle of one, is told apart")
    func closedEarly() throws {
        #expect(throws: HTTPWireFailure.closedBeforeMessage) { try Self.parseResponse([]) }
        #expect(throws: HTTPWireFailure.closedInMessage) { try Self.parseResponse(Array("HTTP/1.1 200 OK\r\nContent-Le".utf8)) }
        #expect(throws: HTTPWireFailure.closedInMessage) { try Self.parseResponse(Array("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc".utf8)) }
    }

    @Test("an answer that takes longer than the limit times out")
    func timeout() async throws {
        let (listener, port) = try LoopbackSocket.listen(port: 0)
        // The listener accepts into its backlog and never answers.
        let answer = await LoopbackHTTPClient.send(HTTPRequest(method: "GET", target: "/"), port: port,
                                                   limits: HTTPLimits(timeout: .milliseconds(50)))
        #expect(answer == .failure(.socket(.timedOut)))
        _ = listener
    }

    /// Parses `bytes` as a response that a server wrote and then closed.
    static func parseResponse(_ bytes: [UInt8]) throws(HTTPWireFailure) -> HTTPResponse {
        var reader = try reader(of: bytes)
        return try LoopbackHTTPClient.readResponse(&reader, method: "GET")
    }

    /// Parses `bytes` as a request that a client wrote and then closed.
    static func parseRequest(_ bytes: [UInt8]) throws(HTTPWireFailure) -> HTTPRequest {
        var reader = try reader(of: bytes)
        return try LoopbackHTTPServer.readRequest(&reader)
    }

    /// A reader of `bytes`, written to one end of a socket pair that is then closed.
    static func reader(of bytes: [UInt8]) throws(HTTPWireFailure) -> HTTPWireReader {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, LoopbackSocket.streamType, 0, &fds) == 0 else { throw .socket(.system("socketpair")) }
        do {
            let writer = LoopbackSocket(fd: fds[1])
            try? writer.write(bytes, until: .now + .seconds(1))
        }
        return HTTPWireReader(socket: LoopbackSocket(fd: fds[0]), limits: limits, deadline: .now + .seconds(2))
    }
}

extension HTTPRequest {
    var text: String { String(decoding: body, as: UTF8.self) }
}
