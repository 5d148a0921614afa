import Foundation
import Testing
@testable import AppStoreAPI
@testable import TestSupport

/// HTTP errors, Apple's error codes, rate limits, retries, timeouts — and no secret in any error.
@Suite("Errors, retries and timeouts")
struct ErrorHandlingTests {
    func transactionInfo(_ server: StubHTTPServer, clock: ManualClock = ManualClock(), retry: RetryPolicy = APIFixtures.retry,
                         timeout: Double = 5) async -> AppStoreAPIError? {
        do {
            _ = try await APIFixtures.serverClient(server, clock: clock, retry: retry, timeout: timeout).transactionInfo(transactionId: "23456")
            return nil
        } catch let error as AppStoreAPIError {
            return error
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    func success() throws -> StubHTTPServer.Response {
        .json(200, object: ["signedTransactionInfo": try APIFixtures.signedTransaction()])
    }

    @Test("HTTP 401 is not retried and says what to check, without the token or issuer id")
    func unauthorized() async throws {
        let server = StubHTTPServer([.answer(status: 401, headers: [:], body: Data("Unauthenticated".utf8))])
        let error = try #require(await transactionInfo(server))
        #expect(error.code == .unauthorized)
        #expect(error.httpStatus == 401)
        #expect(server.requests.count == 1)
        for words in ["issuer id", "key id", ".p8", "In-App Purchase key", "expired"] { #expect(error.message.contains(words)) }
        let token = try #require(server.requests.first?.header("Authorization")).dropFirst("Bearer ".count)
        #expect(!error.description.contains(token))
        #expect(!error.description.contains(APIFixtures.issuerId))
    }

    @Test("4040010 TransactionIdNotFoundError is .notFound with Apple's name and advice, not retried")
    func transactionNotFound() async throws {
        let server = StubHTTPServer([.json(404, #"{"errorCode": 4040010, "errorMessage": "Transaction id not found."}"#)])
        let error = try #require(await transactionInfo(server))
        #expect(error.code == .notFound)
        #expect(error.appleErrorCode == 4_040_010)
        #expect(error.appleErrorName == "TransactionIdNotFoundError")
        #expect(error.appleErrorMessage == "Transaction id not found.")
        #expect(error.message.contains("sandbox"))
        #expect(!error.isRetryable)
        #expect(server.requests.count == 1)
        #expect(error.description.contains("App Store Server API GET /inApps/v1/transactions/{transactionId}: "))
        #expect(error.description.contains("HTTP 404; Apple 4040010 TransactionIdNotFoundError: \"Transaction id not found.\""))
    }

    @Test("4000006 InvalidTransactionIdError is .badRequest with advice")
    func invalidTransactionId() async throws {
        let server = StubHTTPServer([.json(400, #"{"errorCode": 4000006, "errorMessage": "Invalid transaction id."}"#)])
        let error = try #require(await transactionInfo(server))
        #expect(error.code == .badRequest)
        #expect(error.appleErrorName == "InvalidTransactionIdError")
        #expect(error.message.contains("transaction id"))
        #expect(server.requests.count == 1)
    }

    @Test("HTTP 404 without a body is .notFound")
    func bare404() async throws {
        let error = try #require(await transactionInfo(StubHTTPServer([.answer(status: 404, headers: [:], body: Data())])))
        #expect(error.code == .notFound)
        #expect(error.appleErrorCode == nil)
    }

    @Test("429 with Retry-After (UNIX ms) waits exactly until then, with a fresh token, then succeeds")
    func rateLimitedThenSuccess() async throws {
        let clock = ManualClock()
        let retryAt = Int64(clock.now().timeIntervalSince1970 * 1000) + 2_500
        let limited = try String(decoding: APIFixtures.data("models/apiTooManyRequestsException.json"), as: UTF8.self)
        let server = StubHTTPServer([.json(429, limited, headers: ["Retry-After": String(retryAt)]), try success()])
        #expect(await transactionInfo(server, clock: clock) == nil)
        #expect(clock.sleeps == [2.5])
        #expect(server.requests.count == 2)
        let tokens = try server.requests.map { try DecodedToken(authorization: $0.header("Authorization")) }
        #expect(tokens[1].int("iat") == (tokens[0].int("iat") ?? 0) + 2)
    }

    @Test("429 whose Retry-After is further than the limit fails at once with the time to retry")
    func rateLimitedTooLong() async throws {
        let clock = ManualClock()
        let retryAt = Int64(clock.now().timeIntervalSince1970 * 1000) + 3_600_000
        let server = StubHTTPServer([.json(429, #"{"errorCode": 4290000, "errorMessage": "Rate limit exceeded."}"#, headers: ["Retry-After": String(retryAt)])])
        let error = try #require(await transactionInfo(server, clock: clock))
        #expect(error.code == .rateLimited)
        #expect(error.appleErrorName == "RateLimitExceededError")
        #expect(error.retryAfter == Date(timeIntervalSince1970: Double(retryAt) / 1000))
        #expect(error.message.contains("3600 s"))
        #expect(clock.sleeps.isEmpty)
        #expect(server.requests.count == 1)
    }

    @Test("429 without Retry-After backs off exponentially")
    func rateLimitedBackoff() async throws {
        let clock = ManualClock()
        let server = StubHTTPServer([.json(429, "{}"), .json(429, "{}"), try success()])
        #expect(await transactionInfo(server, clock: clock) == nil)
        #expect(clock.sleeps == [0.375, 0.75])
    }

    @Test("5000001 GeneralInternalRetryableError is retried with backoff and jitter, then succeeds")
    func retryableThenSuccess() async throws {
        let clock = ManualClock()
        let retryable = StubHTTPServer.Response.json(500, #"{"errorCode": 5000001, "errorMessage": "An unknown error occurred. Please try again."}"#)
        let server = StubHTTPServer([retryable, retryable, try success()])
        #expect(await transactionInfo(server, clock: clock) == nil)
        #expect(server.requests.count == 3)
        #expect(clock.sleeps == [0.375, 0.75])
    }

    @Test("4040006 OriginalTransactionIdNotFoundRetryableError is retried")
    func retryable404() async throws {
        let server = StubHTTPServer([.json(404, #"{"errorCode": 4040006}"#), try success()])
        #expect(await transactionInfo(server) == nil)
        #expect(server.requests.count == 2)
    }

    @Test("A persistent 503 gives up after the attempt limit and says so")
    func persistentServerError() async throws {
        let clock = ManualClock()
        let server = StubHTTPServer([.answer(status: 503, headers: [:], body: Data("<html>busy</html>".utf8))])
        let error = try #require(await transactionInfo(server, clock: clock))
        #expect(error.code == .serverError)
        #expect(error.attempts == 4)
        #expect(server.requests.count == 4)
        #expect(error.message.contains("gave up after 4 attempts"))
        #expect(clock.sleeps == [0.375, 0.75, 1.5])
    }

    @Test("Backoff doubles up to the cap, with half of each wait random")
    func backoffValues() {
        let low = RetryPolicy(baseDelay: 1, maximumDelay: 5, random: { 0 })
        let high = RetryPolicy(baseDelay: 1, maximumDelay: 5, random: { 0.999999 })
        #expect((1...5).map(low.backoff(retry:)) == [0.5, 1, 2, 2.5, 2.5])
        #expect((1...5).map { (high.backoff(retry: $0) * 1000).rounded() / 1000 } == [1, 2, 4, 5, 5])
    }

    @Test("Retry-After is read as Apple's UNIX ms, and as seconds, a delay or an HTTP date",
          arguments: [("1735689602500", 1_735_689_602.5), ("1735689605", 1_735_689_605.0), ("7", 1_735_689_607.0),
                      ("Wed, 01 Jan 2025 00:00:09 GMT", 1_735_689_609.0)])
    func retryAfterForms(value: String, expected: Double) {
        #expect(RetryPolicy.retryAfterDate(value, now: APIFixtures.start) == Date(timeIntervalSince1970: expected))
    }

    @Test("Retry-After that is no date at all is ignored")
    func retryAfterGarbage() {
        #expect(RetryPolicy.retryAfterDate("soon", now: APIFixtures.start) == nil)
        #expect(RetryPolicy.retryAfterDate("-5", now: APIFixtures.start) == nil)
    }

    // The point is that the call ends instead of hanging: a hang exceeds the time limit (generous: the test's
    // awaits queue behind the whole suite's on a loaded machine).
    @Test("A request that never answers times out, says what to do, and is retried because GET is safe to repeat", .timeLimit(.minutes(5)))
    func timeout() async throws {
        let server = StubHTTPServer([.hang])
        let error = try #require(await transactionInfo(server, retry: RetryPolicy(maximumAttempts: 2, random: { 0 }), timeout: 0.3))
        #expect(error.code == .timeout)
        #expect(error.message.contains("--timeout"))
        #expect(server.requests.count == 2)
    }

    @Test("A POST that times out is not sent twice")
    func postTimeoutNotRetried() async throws {
        let server = StubHTTPServer([.hang])
        let client = try APIFixtures.serverClient(server, timeout: 0.3)
        let error = await #expect(throws: AppStoreAPIError.self) { try await client.requestTestNotification() }
        #expect(error?.code == .timeout)
        #expect(server.requests.count == 1)
    }

    @Test("A connection failure is .network and retried for a GET")
    func networkFailure() async throws {
        let server = StubHTTPServer([.fail(.cannotConnectToHost), try success()])
        #expect(await transactionInfo(server) == nil)
        let failing = StubHTTPServer([.fail(.notConnectedToInternet)])
        let error = try #require(await transactionInfo(failing, retry: .none))
        #expect(error.code == .network)
        #expect(error.message.contains("network"))
    }

    // Promptly: the request's own timeout (an hour) would end it as .timeout, long after the time limit.
    @Test("Cancelling the task while a request hangs ends it promptly as .cancelled", .timeLimit(.minutes(5)))
    func cancellation() async throws {
        let server = StubHTTPServer([.hang])
        let client = try APIFixtures.serverClient(server, timeout: 3600)
        let task = Task { try await client.transactionInfo(transactionId: "1") }
        while server.requests.isEmpty { try await Task.sleep(nanoseconds: 10_000_000) }
        task.cancel()
        let result = await task.result
        guard case .failure(let error as AppStoreAPIError) = result else {
            Issue.record("expected a cancellation error, got \(result)")
            return
        }
        #expect(error.code == .cancelled)
    }

    @Test("A body that is not the documented JSON is .invalidResponse naming what is wrong")
    func invalidBody() async throws {
        let error = try #require(await transactionInfo(StubHTTPServer([.json(200, #"{"signedTransactionInfo": 5}"#)])))
        #expect(error.code == .invalidResponse)
        #expect(error.message.contains("/signedTransactionInfo"))
        let missing = try #require(await transactionInfo(StubHTTPServer([.json(200, "{}")])))
        #expect(missing.message.contains("signedTransactionInfo"))
    }

    @Test("Apple text that echoes the issuer id or a token is scrubbed before it enters an error")
    func scrubbedAppleText() async throws {
        let server = StubHTTPServer { request, _ in
            let token = request.header("Authorization") ?? ""
            return .json(400, object: ["errorCode": 4000000, "errorMessage": "bad \(token) for \(APIFixtures.issuerId)"])
        }
        let error = try #require(await transactionInfo(server))
        let token = try #require(server.requests.first?.header("Authorization")).dropFirst("Bearer ".count)
        #expect(!error.description.contains(APIFixtures.issuerId))
        #expect(!error.description.contains(token))
        #expect(error.appleErrorMessage == "bad Bearer <redacted> for <redacted>")
    }

    @Test("An App Store Connect error that quotes a tester's e-mail address keeps the address out of the error")
    func emailInConnectError() async throws {
        let server = StubHTTPServer([.json(409, object: ["errors": [["status": "409", "code": "ENTITY_ERROR",
                                                                     "title": "Conflict", "detail": "The account Tester.One@Example.com cannot be changed."]]])])
        let client = try APIFixtures.connectClient(server)
        let error = await #expect(throws: AppStoreAPIError.self) {
            try await client.updateSandboxTester(id: "47be9e57", interruptPurchases: true)
        }
        let description = try #require(error).description
        #expect(!description.lowercased().contains("tester.one@example.com"), "\(description)")
        #expect(description.contains("The account <e-mail address> cannot be changed."), "\(description)")
    }
}
