import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends authorized requests to one of Apple's APIs over `URLSession`, with a timeout, retries and errors
/// that say what to do.
///
/// Every attempt gets a new token (``APITokenFactory``) and the headers `Authorization: Bearer …`,
/// `Accept: application/json`, `User-Agent` and, with a body, `Content-Type: application/json`. The timeout is
/// enforced here, whatever the session does; so are the size of an answer (``maximumAnswerBytes``) and the rule
/// that a redirect is followed only to the base URL's own origin, never carrying the token anywhere else
/// (``BoundedExchange``). Non-2xx answers are turned into ``AppStoreAPIError`` by the
/// API's `interpret` function; ``RetryPolicy`` decides about retrying.
struct APITransport: Sendable {
    let api: AppStoreAPIError.API
    let session: URLSession
    let baseURL: URL
    let tokens: APITokenFactory
    let retry: RetryPolicy
    let clock: any APIClock
    /// Seconds one attempt may take.
    let timeout: Double
    let redaction: Redaction
    /// The most bytes an answer's body may have.
    var maximumAnswerBytes: Int = APITransport.defaultMaximumAnswerBytes
    /// Turns a non-2xx answer into an error whose `isRetryable` and `retryAfter` say whether and when to retry.
    let interpret: @Sendable (HTTPAnswer, APIRequest, Redaction, Date) -> AppStoreAPIError

    static let userAgent = "storekit-matrix"

    /// 16 MB: a page of the largest answer Apple documents (transaction history, sandbox testers) is a few
    /// hundred kilobytes.
    static let defaultMaximumAnswerBytes = 16 << 20

    /// Sends `request`, retrying as ``RetryPolicy`` allows.
    ///
    /// - Returns: The first 2xx answer.
    /// - Throws: ``AppStoreAPIError`` for the last failure, with ``AppStoreAPIError/attempts`` set.
    func send(_ request: APIRequest) async throws(AppStoreAPIError) -> HTTPAnswer {
        guard let url = request.url(relativeTo: baseURL) else {
            throw AppStoreAPIError(.configuration, "cannot build a URL from the base URL \(baseURL.absoluteString) and \(request.path)",
                                   api: api, endpoint: request.endpoint)
        }
        var attempt = 0
        while true {
            attempt += 1
            if Task.isCancelled { throw cancelled(request, attempts: attempt - 1) }
            var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
            urlRequest.httpMethod = request.method
            urlRequest.setValue("Bearer " + (try tokens.token(issuedAt: clock.now())), forHTTPHeaderField: "Authorization")
            urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
            urlRequest.setValue(Self.userAgent, forHTTPHeaderField: "User-Agent")
            if let body = request.body {
                urlRequest.httpBody = body
                urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }

            var failure: AppStoreAPIError
            do throws(TransportFailure) {
                let answer = try await perform(urlRequest)
                if answer.isSuccess { return answer }
                failure = interpret(answer, request, redaction, clock.now())
            } catch {
                failure = describe(error, request)
            }
            failure.api = api
            failure.endpoint = request.endpoint
            failure.attempts = attempt
            if failure.code == .cancelled { throw failure }
            guard failure.isRetryable, attempt < retry.maximumAttempts else {
                if attempt > 1 { failure.message += "; gave up after \(attempt) attempts" }
                throw failure
            }
            var wait = retry.backoff(retry: attempt)
            if let retryAfter = failure.retryAfter {
                let delta = retryAfter.timeIntervalSince(clock.now())
                if delta > retry.maximumRetryAfter {
                    failure.message += "; Apple asks to wait \(Int(delta.rounded(.up))) s, longer than the \(Int(retry.maximumRetryAfter)) s this run waits"
                    throw failure
                }
                wait = max(0, delta)
            }
            do {
                try await clock.sleep(seconds: wait)
            } catch {
                throw cancelled(request, attempts: attempt)
            }
        }
    }

    /// Sends `request` and decodes the JSON answer as `T`.
    ///
    /// - Throws: ``AppStoreAPIError``: the errors of ``send(_:)``; `.invalidResponse` when the body does not decode.
    func send<T: Decodable>(_ request: APIRequest, decoding type: T.Type) async throws(AppStoreAPIError) -> T {
        let answer = try await send(request)
        do {
            return try JSONDecoder().decode(T.self, from: answer.body)
        } catch {
            throw AppStoreAPIError(.invalidResponse, "the answer is not the JSON Apple documents for this endpoint (\(DecodingProblem.describe(error))); "
                                   + "if --api-base-url points to a proxy or mock, check what it returns",
                                   api: api, endpoint: request.endpoint, httpStatus: answer.status)
        }
    }

    // MARK: - One attempt

    enum TransportFailure: Error {
        case timedOut
        case cancelled
        case network(String)
        case notHTTP
        case refused(BoundedExchange.Refusal)
    }

    private func perform(_ request: URLRequest) async throws(TransportFailure) -> HTTPAnswer {
        let session = self.session
        let limit = maximumAnswerBytes
        let nanoseconds = UInt64(max(0.001, min(timeout, 3600)) * 1_000_000_000)
        do {
            return try await withThrowingTaskGroup(of: HTTPAnswer.self) { group in
                group.addTask {
                    try await BoundedExchange.send(request, like: session, maximumBytes: limit)
                }
                group.addTask {
                    try await Task.sleep(nanoseconds: nanoseconds)
                    throw TransportFailure.timedOut
                }
                defer { group.cancelAll() }
                guard let first = try await group.next() else { throw TransportFailure.timedOut }
                return first
            }
        } catch let failure as TransportFailure {
            throw failure
        } catch let refusal as BoundedExchange.Refusal {
            throw .refused(refusal)
        } catch let error as URLError {
            switch error.code {
            case .timedOut: throw .timedOut
            case .cancelled: throw Task.isCancelled ? .cancelled : .network("the request was cancelled")
            default: throw .network(redaction.scrub(error.localizedDescription) + " [URLError \(error.code.rawValue)]")
            }
        } catch is CancellationError {
            throw .cancelled
        } catch {
            throw Task.isCancelled ? .cancelled : .network(redaction.scrub(String(describing: error)))
        }
    }

    private func describe(_ failure: TransportFailure, _ request: APIRequest) -> AppStoreAPIError {
        switch failure {
        case .timedOut:
            return AppStoreAPIError(.timeout, "no answer within \(Self.seconds(timeout)); check the network and any proxy (--api-base-url), "
                                    + "or allow more time with --timeout", isRetryable: request.isIdempotent)
        case .cancelled:
            return AppStoreAPIError(.cancelled, "the request was cancelled")
        case .network(let cause):
            return AppStoreAPIError(.network, "could not reach \(baseURL.host ?? baseURL.absoluteString); check the network connection, DNS and any proxy",
                                    isRetryable: request.isIdempotent, cause: cause)
        case .notHTTP:
            return AppStoreAPIError(.invalidResponse, "the answer is not an HTTP response")
        case .refused(.tooLarge(let limit, let announced)):
            let size = announced.map { "is \(Self.megabytes(Int($0)))" } ?? "grew past \(Self.megabytes(limit))"
            return AppStoreAPIError(.invalidResponse, "the answer \(size), more than the \(Self.megabytes(limit)) an answer may have; "
                                    + "no answer Apple documents is this large: if --api-base-url points to a proxy or mock, check what it returns")
        case .refused(.crossOriginRedirect(let from, let to)):
            return AppStoreAPIError(.invalidResponse, "the server redirected the request from \(Self.origin(from)) to \(Self.origin(to)), another origin; "
                                    + "it was not sent there, because its credentials are for \(Self.origin(from)) alone; "
                                    + "if that server is the one to use, give it as the base URL (--api-base-url)")
        }
    }

    private func cancelled(_ request: APIRequest, attempts: Int) -> AppStoreAPIError {
        AppStoreAPIError(.cancelled, "the request was cancelled", api: api, endpoint: request.endpoint, attempts: attempts)
    }

    /// `scheme://host:port` of `url`: where a request goes, without its path or query.
    static func origin(_ url: URL) -> String {
        guard let scheme = url.scheme, let host = url.host else { return "an address that is not a URL" }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }

    static func megabytes(_ bytes: Int) -> String {
        bytes >= 1 << 20 ? "\(bytes >> 20) MB" : "\(bytes) bytes"
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }
}
