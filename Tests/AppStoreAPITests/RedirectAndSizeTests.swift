import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Threading
import Testing
@testable import AppStoreAPI
import LoopbackHTTP
@testable import TestSupport

/// What a server can do to a client that carries a bearer token: redirect it elsewhere, or answer without end.
/// Real HTTP on 127.0.0.1, through the URL loading system as a run uses it.
@Suite("API answers: redirects and sizes")
struct RedirectAndSizeTests {
    /// A server that records every request it gets.
    final class Recorder: Sendable {
        final class Log: Sendable {
            let requests = Locked<[HTTPRequest]>([])
        }
        let log = Log()
        let server: LoopbackHTTPServer

        init(_ answer: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws {
            let log = self.log
            server = try LoopbackHTTPServer.start { request in
                log.requests.withLock { $0.append(request) }
                return answer(request)
            }
        }

        var received: [HTTPRequest] { log.requests.withLock { $0 } }
        var baseURL: URL { URL(string: "http://127.0.0.1:\(server.port)")! }
        deinit { server.stop() }
    }

    func client(_ baseURL: URL, maximumAnswerBytes: Int = 16 << 20) throws -> AppStoreServerAPIClient {
        var configuration = AppStoreServerAPIClient.Configuration(
            environment: .sandbox, baseURL: baseURL, timeout: 20, retry: RetryPolicy(maximumAttempts: 1), clock: ManualClock(),
            rootCertificates: [try APIFixtures.testRoot()], session: URLSession(configuration: .ephemeral))
        configuration.maximumAnswerBytes = maximumAnswerBytes
        return try AppStoreServerAPIClient(credentials: APIFixtures.credentials(), configuration: configuration)
    }

    func transactionInfo(_ client: AppStoreServerAPIClient) async -> AppStoreAPIError? {
        do {
            _ = try await client.transactionInfo(transactionId: "23456")
            return nil
        } catch {
            return error
        }
    }

    @Test("A 301, 302, 307 or 308 to another port is refused: the other server never gets the token", .timeLimit(.minutes(2)),
          arguments: [301, 302, 307, 308])
    func crossOrigin(status: Int) async throws {
        let elsewhere = try Recorder { _ in .json(200, Array(#"{"signedTransactionInfo": "x"}"#.utf8)) }
        let target = "http://127.0.0.1:\(elsewhere.server.port)/inApps/v1/transactions/23456?stolen=1"
        let origin = try Recorder { _ in HTTPResponse(status: status, headers: [("Location", target)]) }
        let error = try #require(await transactionInfo(try client(origin.baseURL)))
        #expect(origin.received.count == 1)
        #expect(elsewhere.received.isEmpty, "the redirect was followed with \(elsewhere.received.map { $0.header("Authorization") ?? "no token" })")
        #expect(error.code == .invalidResponse)
        #expect(error.message.contains("redirected the request from http://127.0.0.1:\(origin.server.port) to http://127.0.0.1:\(elsewhere.server.port), another origin"),
                "\(error.message)")
        #expect(!error.message.contains("stolen"), "only the origin is named")
    }

    @Test("A redirect to another host is refused too", .timeLimit(.minutes(2)))
    func otherHost() async throws {
        let origin = try Recorder { _ in HTTPResponse(status: 302, headers: [("Location", "http://localhost.invalid:1/x")]) }
        let error = try #require(await transactionInfo(try client(origin.baseURL)))
        #expect(error.message.contains("to http://localhost.invalid:1, another origin"), "\(error.message)")
    }

    @Test("A redirect within the origin is followed, with the token", .timeLimit(.minutes(2)))
    func sameOrigin() async throws {
        let signed = try APIFixtures.signedTransaction()
        let server = try Recorder { request in
            request.path.hasPrefix("/moved") ? .json(200, Array(#"{"signedTransactionInfo": "\#(signed)"}"#.utf8))
                                             : HTTPResponse(status: 307, headers: [("Location", "/moved" + request.target)])
        }
        #expect(await transactionInfo(try client(server.baseURL)) == nil)
        #expect(server.received.map(\.path) == ["/inApps/v1/transactions/23456", "/moved/inApps/v1/transactions/23456"])
        #expect(server.received.allSatisfy { $0.header("Authorization")?.hasPrefix("Bearer ") == true })
    }

    @Test("An answer whose Content-Length is over the limit is refused at its header", .timeLimit(.minutes(2)))
    func tooLargeAnnounced() async throws {
        let body = [UInt8](repeating: UInt8(ascii: " "), count: 64 << 10) + Array(#"{}"#.utf8)
        let server = try Recorder { _ in .json(200, body) }
        let error = try #require(await transactionInfo(try client(server.baseURL, maximumAnswerBytes: 16 << 10)))
        #expect(error.code == .invalidResponse)
        #expect(error.message.contains("the answer is \(body.count) bytes, more than the 16384 bytes an answer may have"), "\(error.message)")
    }

    @Test("An answer that does not say its length stops when it grows past the limit")
    func tooLargeUnannounced() async throws {
        let body = Data(repeating: UInt8(ascii: " "), count: 64 << 10)
        let server = StubHTTPServer([.answer(status: 200, headers: ["Content-Type": "application/json"], body: body)])
        var configuration = AppStoreServerAPIClient.Configuration(
            environment: .sandbox, baseURL: server.baseURL, timeout: 20, retry: RetryPolicy(maximumAttempts: 1), clock: ManualClock(),
            rootCertificates: [try APIFixtures.testRoot()], session: server.session)
        configuration.maximumAnswerBytes = 16 << 10
        let error = try #require(await transactionInfo(try AppStoreServerAPIClient(credentials: APIFixtures.credentials(), configuration: configuration)))
        #expect(error.code == .invalidResponse)
        #expect(error.message.contains("the answer grew past 16384 bytes"), "\(error.message)")
    }

    @Test("An answer within the limit reads as before")
    func withinLimit() async throws {
        let signed = try APIFixtures.signedTransaction()
        let server = try Recorder { _ in .json(200, Array(#"{"signedTransactionInfo": "\#(signed)"}"#.utf8)) }
        #expect(await transactionInfo(try client(server.baseURL, maximumAnswerBytes: 16 << 10)) == nil)
    }

    @Test("Origins compare scheme, host and port, the scheme's default port included")
    func origins() throws {
        func url(_ text: String) throws -> URL { try #require(URL(string: text)) }
        #expect(BoundedExchange.sameOrigin(try url("https://api.storekit.itunes.apple.com/a"), try url("https://API.storekit.itunes.apple.com:443/b")))
        #expect(!BoundedExchange.sameOrigin(try url("https://api.storekit.itunes.apple.com/a"), try url("http://api.storekit.itunes.apple.com/a")))
        #expect(!BoundedExchange.sameOrigin(try url("https://api.storekit.itunes.apple.com/a"), try url("https://api.storekit.itunes.apple.com:8443/a")))
        #expect(!BoundedExchange.sameOrigin(try url("https://api.storekit.itunes.apple.com/a"), try url("https://evil.example/a")))
    }
}
