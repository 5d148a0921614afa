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
        let toEnd = Array("HTTP/1.0 500 Oops\r\nX: y\r\n\r\ndown".utf8)
        let parsed = try Self.parseResponse(toEnd)
        #expect(parsed.status == 500 && parsed.text == "down")
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
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, LoopbackSocket.streamType, 0, &fds) == 0 else { throw .socket(.system("socketpair")) }
        do {
            let writer = LoopbackSocket(fd: fds[1])
            try? writer.write(bytes, until: .now + .seconds(1))
        }
        var reader = HTTPWireReader(socket: LoopbackSocket(fd: fds[0]), limits: limits, deadline: .now + .seconds(2))
        return try LoopbackHTTPClient.readResponse(&reader, method: "GET")
    }
}

extension HTTPRequest {
    var text: String { String(decoding: body, as: UTF8.self) }
}
