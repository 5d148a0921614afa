import Foundation
import LoopbackHTTP
import MatrixEngine
import MatrixJSON
import MatrixModel

/// Asks the backend's access endpoint which tiers an account has.
///
/// The URL template's placeholders: `{account}` (the account's alias), `{appAccountToken}` (the UUID the
/// account's purchases carry), `{originalTransactionId}` (then the endpoint is asked once for each original
/// transaction the account holds at the store, and the tiers of every answer together are the account's; an
/// account without transactions is not asked and has none). The request carries the store's clock in the header
/// `Matrix-Store-Time` (ms since 1970): a backend that computes time-based access (a non-renewing subscription's
/// end) must use it, not its own clock, since a run moves through months in milliseconds.
///
/// The answer must be HTTP 200 with a JSON object whose `access` is an array of tier names, e.g.
/// `{"access": ["pro"]}`; other members are ignored. Anything else is an `error` of the step, with the answer
/// quoted (bounded, escaped): so is an answer that names a member twice anywhere, which one reader would take
/// first-wins and another last-wins.
struct AccessChecker: Sendable {
    var url: LoopbackURL
    var limits: HTTPLimits
    /// Original transactions an account may hold before the checker refuses to ask for each.
    static let maximumQueries = 50

    /// Asks the endpoint, each request ending by `deadline` (the step's bound) as well as within the limits.
    ///
    /// - Throws: ``AdapterError`` for an answer that is not one, or none by the deadline; `CancellationError` when
    ///   the task is cancelled.
    func access(account: String, appAccountToken: String, originalTransactionIds: [String], storeTime: Int64,
                deadline: ContinuousClock.Instant = .now + .seconds(86_400), stepLimit: Duration? = nil) async throws
        -> (access: [String], queries: [AccessQuery]) {
        let perOriginal = url.target.contains("{originalTransactionId}")
        let values = ["account": account, "appAccountToken": appAccountToken]
        var queries: [AccessQuery] = []
        var tiers = Set<String>()
        let originals: [String?] = perOriginal ? originalTransactionIds.map { $0 } : [nil]
        guard originals.count <= Self.maximumQueries else {
            throw AdapterError("account \"\(account)\" holds \(originals.count) original transactions; the access URL has {originalTransactionId}, "
                               + "and more than \(Self.maximumQueries) requests a step are not made: key the access URL by {appAccountToken} or {account}")
        }
        for original in originals {
            var filled = values
            if let original { filled["originalTransactionId"] = original }
            let target = url.filled(filled)
            var query = AccessQuery(url: "http://127.0.0.1:\(url.port)\(target)", originalTransactionId: original)
            let request = HTTPRequest(method: "GET", target: target,
                                      headers: [("Accept", "application/json"), ("Matrix-Store-Time", String(storeTime))])
            var limits = limits
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else {
                throw AdapterError("the access endpoint \(query.url) was not asked: the step's requests to the backend took longer than "
                                   + "\(stepLimit.map { "\($0)" } ?? "the step's limit") (4 × --step-timeout); answer each request within --step-timeout")
            }
            limits.timeout = min(limits.timeout, remaining)
            switch await LoopbackHTTPClient.send(request, port: url.port, limits: limits) {
            case .failure(.cancelled):
                throw CancellationError()
            case .failure(let failure):
                throw AdapterError("the access endpoint \(query.url) could not be asked: \(failure); is the backend running?")
            case .success(let response):
                query.httpStatus = response.status
                guard response.status == 200 else {
                    throw AdapterError("the access endpoint \(query.url) answered HTTP \(response.status)"
                                       + (response.body.isEmpty ? "" : ": \(NotificationPoster.excerpt(response.body))")
                                       + "; it must answer 200 with {\"access\": [TIER, …]}")
                }
                let granted = try Self.parse(response.body, url: query.url)
                query.access = granted
                tiers.formUnion(granted)
            }
            queries.append(query)
        }
        return (tiers.sorted(), queries)
    }

    /// The tiers of an answer: a JSON object with `access`, an array of at most 100 strings of at most 100
    /// characters each.
    static func parse(_ body: [UInt8], url: String) throws(AdapterError) -> [String] {
        let problem = "the access endpoint \(url) answered \(NotificationPoster.excerpt(body)); it must answer a JSON object with "
            + "\"access\": an array of tier names, e.g. {\"access\": [\"pro\"]}"
        let document: JSONValue
        do {
            document = try StrictJSON.parse(body)
        } catch {
            if error.isDuplicateKey {
                throw AdapterError("the access endpoint \(url) answered JSON that names a member twice (\(NotificationPoster.excerpt(Array(error.reason.utf8))), at "
                                   + "\(NotificationPoster.excerpt(Array((error.pointer.isEmpty ? "/" : error.pointer).utf8)))); "
                                   + "each member may appear once: answer one \"access\" array")
            }
            throw AdapterError(problem)
        }
        guard let list = document.objectValue?["access"]?.arrayValue else { throw AdapterError(problem) }
        guard list.count <= 100 else { throw AdapterError("the access endpoint \(url) answered \(list.count) tiers; at most 100 are read") }
        var tiers: [String] = []
        for item in list {
            guard let tier = item.stringValue, !tier.isEmpty, tier.count <= 100 else { throw AdapterError(problem) }
            tiers.append(tier)
        }
        return tiers
    }
}
