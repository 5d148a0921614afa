import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Threading

/// One request over `URLSession` whose answer is bounded and whose redirects stay where the request was sent.
///
/// - The answer's body is read up to a limit: a `Content-Length` above it stops the transfer at the header,
///   and a body that grows past it (chunked, or longer than announced) stops as soon as it does, so a server
///   or proxy can never make a run hold a gigabyte.
/// - A redirect is followed only to the request's own origin (scheme, host and port). A redirect anywhere else
///   is refused: the request carries `Authorization: Bearer …`, which is for that origin alone.
///
/// The exchange is the delegate of a session made for it from the caller's session's configuration (its
/// protocol classes, proxies and timeouts are kept), and invalidates that session when the request ends.
final class BoundedExchange: NSObject, URLSessionDataDelegate, Sendable {
    /// Why an exchange stopped before its answer was complete.
    enum Refusal: Error, Sendable {
        /// The body is larger than the limit (`announced`: the `Content-Length`, when it said so).
        case tooLarge(limit: Int, announced: Int64?)
        /// A redirect from `from` to `to`, another origin.
        case crossOriginRedirect(from: URL, to: URL)
    }

    private struct State: Sendable {
        var response: HTTPURLResponse?
        var body = Data()
        var refusal: Refusal?
        var continuation: CheckedContinuation<HTTPAnswer, any Error>?
        var finished = false
    }

    private let maximumBytes: Int
    private let state = Locked(State())

    private init(maximumBytes: Int) {
        self.maximumBytes = maximumBytes
    }

    /// Sends `request` through a session configured as `session` is, and returns the answer.
    ///
    /// - Throws: ``Refusal`` when the answer is too large or redirects to another origin; the session's error
    ///   (`URLError`) when the transfer fails; `URLError(.cancelled)` when the calling task is cancelled.
    static func send(_ request: URLRequest, like session: URLSession, maximumBytes: Int) async throws -> HTTPAnswer {
        let exchange = BoundedExchange(maximumBytes: maximumBytes)
        let bounded = URLSession(configuration: session.configuration, delegate: exchange, delegateQueue: nil)
        defer { bounded.finishTasksAndInvalidate() }
        let task = bounded.dataTask(with: request)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let cancelled = exchange.state.withLock { state -> Bool in
                    state.continuation = continuation
                    return state.finished
                }
                if cancelled || Task.isCancelled {
                    exchange.finish(with: URLError(.cancelled))
                    task.cancel()
                } else {
                    task.resume()
                }
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// Whether `target` has the scheme, host and port of `source` (the default port of the scheme when absent).
    static func sameOrigin(_ source: URL, _ target: URL) -> Bool {
        func origin(_ url: URL) -> (String, String, Int)? {
            guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
            let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
            return (scheme, host, port)
        }
        guard let a = origin(source), let b = origin(target) else { return false }
        return a == b
    }

    private func finish(with error: (any Error)?) {
        let (continuation, result) = state.withLock { state -> (CheckedContinuation<HTTPAnswer, any Error>?, Result<HTTPAnswer, any Error>) in
            let result: Result<HTTPAnswer, any Error>
            if let refusal = state.refusal {
                result = .failure(refusal)
            } else if let error {
                result = .failure(error)
            } else if let response = state.response {
                var headers: [String: String] = [:]
                for (name, value) in response.allHeaderFields {
                    if let name = name as? String, let value = value as? String { headers[name] = value }
                }
                result = .success(HTTPAnswer(status: response.statusCode, headers: headers, body: state.body))
            } else {
                result = .failure(URLError(.badServerResponse))
            }
            state.finished = true
            defer { state.continuation = nil }
            return (state.continuation, result)
        }
        continuation?.resume(with: result)
    }

    private func refuse(_ refusal: Refusal) {
        state.withLock { state in
            if state.refusal == nil { state.refusal = refusal }
            state.body = Data()
        }
    }

    // MARK: - URLSessionDataDelegate

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        guard let http = response as? HTTPURLResponse else {
            completionHandler(.cancel)
            return
        }
        if http.expectedContentLength > Int64(maximumBytes) {
            refuse(.tooLarge(limit: maximumBytes, announced: http.expectedContentLength))
            completionHandler(.cancel)
            return
        }
        state.withLock { $0.response = http }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let over = state.withLock { state -> Bool in
            guard state.refusal == nil else { return true }
            guard state.body.count + data.count <= maximumBytes else { return true }
            state.body.append(data)
            return false
        }
        if over {
            refuse(.tooLarge(limit: maximumBytes, announced: nil))
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        guard let source = task.originalRequest?.url, let target = request.url, Self.sameOrigin(source, target) else {
            let from = task.originalRequest?.url ?? response.url ?? URL(fileURLWithPath: "/")
            refuse(.crossOriginRedirect(from: from, to: request.url ?? from))
            completionHandler(nil)
            task.cancel()
            return
        }
        completionHandler(request)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        finish(with: error)
    }
}
