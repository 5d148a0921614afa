import Foundation
import MatrixModel
import SignedData
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A client of the App Store Server API: transactions, subscription statuses, refunds and notifications, with
/// every signed item verified to Apple Root CA - G3 before it is returned.
///
/// Paged endpoints are read to the end (`revision` or `paginationToken` until `hasMore` is false), up to
/// ``Configuration/maximumPages``. Errors are ``AppStoreAPIError``s that say what to do; temporary failures
/// are retried (``RetryPolicy``).
///
/// Apple: https://developer.apple.com/documentation/appstoreserverapi
public struct AppStoreServerAPIClient: Sendable {
    /// How the client connects and verifies.
    public struct Configuration: Sendable {
        /// Sandbox (also TestFlight) or Production: the base URL and the verifier's environment.
        public var environment: SignedEnvironment
        /// A base URL replacing Apple's, for a proxy or a local mock (`--api-base-url`); its path is kept as a prefix.
        public var baseURL: URL?
        /// Seconds one attempt may take.
        public var timeout: Double
        /// Retries.
        public var retry: RetryPolicy
        /// Time and waiting.
        public var clock: any APIClock
        /// Trust anchors for signed data; `nil` means Apple Root CA - G3.
        public var rootCertificates: [X509Certificate]?
        /// The session requests go through (its configuration: each request gets a session of its own, made
        /// from it, that bounds the answer and refuses redirects to another origin).
        public var session: URLSession
        /// The most bytes one answer's body may have (16 MB); a larger one is `.invalidResponse`.
        public var maximumAnswerBytes: Int = APITransport.defaultMaximumAnswerBytes
        /// The most pages read from one paged endpoint.
        public var maximumPages: Int

        /// A configuration for `environment` with Apple's base URL, a 30 s timeout and the standard retries.
        public init(environment: SignedEnvironment, baseURL: URL? = nil, timeout: Double = 30, retry: RetryPolicy = .standard,
                    clock: any APIClock = SystemAPIClock(), rootCertificates: [X509Certificate]? = nil,
                    session: URLSession = URLSession(configuration: .ephemeral), maximumPages: Int = 100) {
            self.environment = environment
            self.baseURL = baseURL
            self.timeout = timeout
            self.retry = retry
            self.clock = clock
            self.rootCertificates = rootCertificates
            self.session = session
            self.maximumPages = max(1, maximumPages)
        }
    }

    /// The configuration in use.
    public let configuration: Configuration
    /// The verifier for the signed data in answers.
    public let decoder: SignedDataDecoder
    let transport: APITransport

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - credentials: The issuer id and the In-App Purchase key (``AppStoreCredentials/serverAPIKey``).
    ///   - bundleId: The app's bundle id (the JWT's `bid` and the verifier's); defaults to the credentials'.
    ///   - appAppleId: The app's Apple id, needed for Production; defaults to the credentials'.
    ///   - configuration: Where and how to connect.
    /// - Throws: ``AppStoreAPIError`` `.configuration` without a key or a bundle id, or for Production without
    ///   an app Apple id.
    public init(credentials: AppStoreCredentials, bundleId: String? = nil, appAppleId: Int64? = nil, configuration: Configuration) throws(AppStoreAPIError) {
        guard let key = credentials.serverAPIKey else {
            throw AppStoreAPIError(.configuration, "no In-App Purchase key is configured for the App Store Server API")
        }
        guard let bundleId = bundleId ?? credentials.bundleId, !bundleId.isEmpty else {
            throw AppStoreAPIError(.configuration, "the App Store Server API needs the app's bundle id (the JWT's bid claim); "
                                   + "set bundleId in the credentials file or \(CredentialsLoader.bundleIdVariable)")
        }
        guard let baseURL = configuration.baseURL ?? configuration.environment.serverAPIBaseURL else {
            throw AppStoreAPIError(.configuration, "the App Store Server API serves Production and Sandbox only, not "
                                   + "\(configuration.environment); give a base URL for a server that answers for it")
        }
        let clock = configuration.clock
        self.configuration = configuration
        decoder = try SignedDataDecoder(environment: configuration.environment, bundleId: bundleId,
                                        appAppleId: appAppleId ?? credentials.appAppleId,
                                        rootCertificates: configuration.rootCertificates, now: { clock.now() })
        transport = APITransport(
            api: .appStoreServer, session: configuration.session, baseURL: baseURL,
            tokens: APITokenFactory(issuerId: credentials.issuerId, key: key, audience: .appStoreServerAPI(bundleId: bundleId)),
            retry: configuration.retry, clock: clock, timeout: configuration.timeout,
            redaction: Redaction(secrets: credentials.secrets), maximumAnswerBytes: configuration.maximumAnswerBytes,
            interpret: ServerAPIFailure.interpret)
    }

    // MARK: - Transactions

    /// Get Transaction Info: `GET /inApps/v1/transactions/{transactionId}`.
    ///
    /// - Parameter transactionId: Any transaction id of the customer's (an original one works too).
    /// - Returns: The verified transaction.
    /// - Throws: ``AppStoreAPIError``; `.notFound` (4040010) when the id is not in this environment.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/get-transaction-info
    public func transactionInfo(transactionId: String) async throws(AppStoreAPIError) -> SignedTransaction {
        let request = APIRequest(method: "GET", path: "/inApps/v1/transactions/" + (try segment(transactionId)),
                                 endpoint: "GET /inApps/v1/transactions/{transactionId}")
        let body = try await transport.send(request, decoding: TransactionInfoResponse.self)
        guard let jws = body.signedTransactionInfo else { throw missing("signedTransactionInfo", request) }
        return try decoder.transaction(jws)
    }

    /// Get Transaction History (v2): `GET /inApps/v2/history/{transactionId}`, every page.
    ///
    /// - Parameters:
    ///   - transactionId: Any transaction id of the customer's.
    ///   - query: Filters and order; the same on every page, as Apple requires.
    /// - Returns: Every transaction, verified, in page order.
    /// - Throws: ``AppStoreAPIError``; `.invalidResponse` when paging does not advance or exceeds the page limit.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/get-transaction-history
    public func transactionHistory(transactionId: String, query: TransactionHistoryQuery = TransactionHistoryQuery()) async throws(AppStoreAPIError) -> TransactionHistory {
        let path = "/inApps/v2/history/" + (try segment(transactionId))
        var history = TransactionHistory(transactions: [], pageCount: 0)
        var paging = Paging(limit: configuration.maximumPages)
        while true {
            let request = APIRequest(method: "GET", path: path, query: paging.items(named: "revision") + query.queryItems,
                                     endpoint: "GET /inApps/v2/history/{transactionId}")
            let page = try await transport.send(request, decoding: HistoryResponse.self)
            history.bundleId = page.bundleId ?? history.bundleId
            history.appAppleId = page.appAppleId ?? history.appAppleId
            history.environment = page.environment ?? history.environment
            for jws in page.signedTransactions ?? [] { history.transactions.append(try decoder.transaction(jws)) }
            history.pageCount += 1
            guard try paging.advance(hasMore: page.hasMore, next: page.revision, request: request) else { return history }
        }
    }

    /// Get Refund History (v2): `GET /inApps/v2/refund/lookup/{transactionId}`, every page.
    ///
    /// - Returns: The refunded transactions, verified, ascending by `revocationDate`.
    /// - Throws: ``AppStoreAPIError``.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/get-refund-history
    public func refundHistory(transactionId: String) async throws(AppStoreAPIError) -> [SignedTransaction] {
        let path = "/inApps/v2/refund/lookup/" + (try segment(transactionId))
        var transactions: [SignedTransaction] = []
        var paging = Paging(limit: configuration.maximumPages)
        while true {
            let request = APIRequest(method: "GET", path: path, query: paging.items(named: "revision"),
                                     endpoint: "GET /inApps/v2/refund/lookup/{transactionId}")
            let page = try await transport.send(request, decoding: RefundHistoryResponse.self)
            for jws in page.signedTransactions ?? [] { transactions.append(try decoder.transaction(jws)) }
            guard try paging.advance(hasMore: page.hasMore, next: page.revision, request: request) else { return transactions }
        }
    }

    /// Get All Subscription Statuses: `GET /inApps/v1/subscriptions/{transactionId}`.
    ///
    /// - Parameters:
    ///   - transactionId: Any transaction id of the customer's.
    ///   - status: Only these statuses (1 active … 5 revoked); empty for all.
    /// - Returns: Per group, each subscription's status with its verified transaction and renewal info.
    /// - Throws: ``AppStoreAPIError``.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/get-all-subscription-statuses
    public func allSubscriptionStatuses(transactionId: String, status: [Int] = []) async throws(AppStoreAPIError) -> SubscriptionStatuses {
        let request = APIRequest(method: "GET", path: "/inApps/v1/subscriptions/" + (try segment(transactionId)),
                                 query: status.map { URLQueryItem(name: "status", value: String($0)) },
                                 endpoint: "GET /inApps/v1/subscriptions/{transactionId}")
        let body = try await transport.send(request, decoding: StatusResponse.self)
        var result = SubscriptionStatuses(environment: body.environment, bundleId: body.bundleId, appAppleId: body.appAppleId, groups: [])
        for group in body.data ?? [] {
            var entry = SubscriptionGroupStatus(subscriptionGroupIdentifier: group.subscriptionGroupIdentifier ?? "", lastTransactions: [])
            for item in group.lastTransactions ?? [] {
                guard let status = item.status else { throw missing("data[].lastTransactions[].status", request) }
                entry.lastTransactions.append(SubscriptionLastTransaction(
                    status: status, originalTransactionId: item.originalTransactionId,
                    transaction: try item.signedTransactionInfo.map { jws throws(AppStoreAPIError) in try decoder.transaction(jws) },
                    renewalInfo: try item.signedRenewalInfo.map { jws throws(AppStoreAPIError) in try decoder.renewalInfo(jws) }))
            }
            result.groups.append(entry)
        }
        return result
    }

    // MARK: - Notifications

    /// Get Notification History: `POST /inApps/v1/notifications/history`, every page (`paginationToken`).
    ///
    /// Use it to find what a step caused: the notifications within the step's time window, filtered by the
    /// customer's transaction id.
    ///
    /// - Returns: The notifications, verified, each with its verified transaction and renewal info.
    /// - Throws: ``AppStoreAPIError``; `.badRequest` before sending for a query Apple would refuse
    ///   (``NotificationHistoryQuery/problem``).
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/get-notification-history
    public func notificationHistory(_ query: NotificationHistoryQuery) async throws(AppStoreAPIError) -> [NotificationHistoryRecord] {
        let endpoint = "POST /inApps/v1/notifications/history"
        if let problem = query.problem {
            throw AppStoreAPIError(.badRequest, problem, api: .appStoreServer, endpoint: endpoint)
        }
        let body: Data
        do {
            body = try JSONEncoder().encode(query.body)
        } catch {
            throw AppStoreAPIError(.configuration, "the notification history query cannot be encoded", api: .appStoreServer, endpoint: endpoint)
        }
        var records: [NotificationHistoryRecord] = []
        var paging = Paging(limit: configuration.maximumPages)
        while true {
            let request = APIRequest(method: "POST", path: "/inApps/v1/notifications/history", query: paging.items(named: "paginationToken"),
                                     body: body, isIdempotent: true, endpoint: endpoint)
            let page = try await transport.send(request, decoding: NotificationHistoryResponse.self)
            for item in page.notificationHistory ?? [] {
                guard let jws = item.signedPayload else { throw missing("notificationHistory[].signedPayload", request) }
                let notification = try decoder.notification(jws)
                records.append(NotificationHistoryRecord(
                    notification: notification,
                    transaction: try notification.payload.data?.signedTransactionInfo.map { jws throws(AppStoreAPIError) in try decoder.transaction(jws) },
                    renewalInfo: try notification.payload.data?.signedRenewalInfo.map { jws throws(AppStoreAPIError) in try decoder.renewalInfo(jws) },
                    sendAttempts: item.sendAttempts ?? []))
            }
            guard try paging.advance(hasMore: page.hasMore, next: page.paginationToken, request: request) else { return records }
        }
    }

    /// Request a Test Notification: `POST /inApps/v1/notifications/test`.
    ///
    /// - Returns: The `testNotificationToken` for ``testNotificationStatus(token:)``.
    /// - Throws: ``AppStoreAPIError``; 4040007 when no notification URL is set for the environment.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/request-a-test-notification
    public func requestTestNotification() async throws(AppStoreAPIError) -> String {
        let request = APIRequest(method: "POST", path: "/inApps/v1/notifications/test", isIdempotent: false)
        let body = try await transport.send(request, decoding: SendTestNotificationResponse.self)
        guard let token = body.testNotificationToken, !token.isEmpty else { throw missing("testNotificationToken", request) }
        return token
    }

    /// Get Test Notification Status: `GET /inApps/v1/notifications/test/{testNotificationToken}`.
    ///
    /// - Throws: ``AppStoreAPIError``; 4040008 while the status is not available yet.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/get-test-notification-status
    public func testNotificationStatus(token: String) async throws(AppStoreAPIError) -> TestNotificationStatus {
        let request = APIRequest(method: "GET", path: "/inApps/v1/notifications/test/" + (try segment(token, what: "test notification token")),
                                 endpoint: "GET /inApps/v1/notifications/test/{testNotificationToken}")
        let body = try await transport.send(request, decoding: CheckTestNotificationResponse.self)
        return TestNotificationStatus(notification: try body.signedPayload.map { jws throws(AppStoreAPIError) in try decoder.notification(jws) },
                                      sendAttempts: body.sendAttempts ?? [])
    }

    // MARK: - Helpers

    private func segment(_ value: String, what: String = "transaction id") throws(AppStoreAPIError) -> String {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= 256 else {
            throw AppStoreAPIError(.badRequest, "the \(what) is empty or too long; use the id from a signed transaction", api: .appStoreServer)
        }
        return APIRequest.pathSegment(trimmed)
    }

    private func missing(_ field: String, _ request: APIRequest) -> AppStoreAPIError {
        AppStoreAPIError(.invalidResponse, "the answer has no \(field)", api: .appStoreServer, endpoint: request.endpoint)
    }
}
