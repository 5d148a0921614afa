import Foundation
import AppStoreAPI
import AppStoreModels
import LoopbackHTTP
import MatrixModel
import SignedData
import SimulatedStoreKit
import StoreSimulator

/// Answers one App Store Server API request: checks the bearer token (401 without a valid one), routes by
/// Apple's paths, and answers with Apple's bodies and error codes (`{"errorCode", "errorMessage"}` with 400, 404
/// or 405). Pure apart from the state it reads: tests call ``respond(to:)`` directly.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/error-codes
struct ServerAPIResponder: Sendable {
    let configuration: ServerAPIConfiguration
    let state: ServerAPIState
    let sendTest: TestNotificationSender

    /// Pages of Get Transaction History, Get Refund History and Get Notification History hold at most 20 items.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/historyresponse
    static let pageSize = 20

    var tokens: BearerTokenCheck { BearerTokenCheck(credentials: configuration.credentials, now: configuration.now) }
    var signer: SimulatorPayloadSigner { SimulatorPayloadSigner(pki: configuration.pki) }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        if let problem = tokens.problem(authorization: request.header("Authorization")) {
            // Apple answers 401 with no error code: "The JSON Web Token (JWT) in the authorization header is invalid."
            return HTTPResponse(status: 401, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array("Unauthenticated: \(problem)\n".utf8))
        }
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        let route = (request.method, segments.count >= 3 ? Array(segments[0..<3]) : segments)
        switch route {
        case ("GET", ["inApps", "v1", "transactions"]) where segments.count == 4:
            return transactionInfo(segments[3])
        case ("GET", ["inApps", "v2", "history"]) where segments.count == 4:
            return history(segments[3], request)
        case ("GET", ["inApps", "v1", "subscriptions"]) where segments.count == 4:
            return statuses(segments[3], request)
        case ("GET", ["inApps", "v2", "refund"]) where segments.count == 5 && segments[3] == "lookup":
            return refunds(segments[4], request)
        case ("POST", ["inApps", "v1", "notifications"]) where segments == ["inApps", "v1", "notifications", "history"]:
            return notificationHistory(request)
        case ("POST", ["inApps", "v1", "notifications"]) where segments == ["inApps", "v1", "notifications", "test"]:
            return requestTest()
        case ("GET", ["inApps", "v1", "notifications"]) where segments.count == 5 && segments[3] == "test":
            return testStatus(segments[4])
        default:
            let known = ["inApps/v1/transactions/", "inApps/v2/history/", "inApps/v1/subscriptions/", "inApps/v2/refund/lookup/",
                         "inApps/v1/notifications/history", "inApps/v1/notifications/test"]
            if known.contains(where: { request.path.dropFirst().hasPrefix($0) }) {
                return HTTPResponse(status: 405, headers: [("Content-Type", "text/plain; charset=utf-8")],
                                    body: Array("\(request.method) is not allowed on \(request.path)\n".utf8))
            }
            return HTTPResponse(status: 404, headers: [("Content-Type", "text/plain; charset=utf-8")],
                                body: Array("no App Store Server API endpoint at \(request.path) (this server answers Get Transaction Info, Get Transaction History, Get All Subscription Statuses, Get Refund History, Get Notification History, Request a Test Notification and Get Test Notification Status)\n".utf8))
        }
    }

    // MARK: Answers

    static func error(_ code: ServerAPIErrorCode, _ message: String) -> HTTPResponse {
        let status = Int(code.rawValue / 10_000)
        return json(status, ServerAPIErrorPayload(errorCode: code.rawValue, errorMessage: message))
    }

    static func json(_ status: Int, _ value: some Encodable) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let body = try? encoder.encode(value) else {
            return error(.generalInternal, "the response could not be encoded")
        }
        return .json(status, body)
    }

    /// A transaction id is a string of digits; anything else is InvalidTransactionIdError (4000006), one no store
    /// knows TransactionIdNotFoundError (4040010).
    func customer(_ id: String) -> Result<(caseID: String, account: String, store: SimulatedStore), HTTPResponseBox> {
        guard !id.isEmpty, id.utf8.count <= 20, id.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return .failure(HTTPResponseBox(Self.error(.invalidTransactionId, "Invalid transaction id.")))
        }
        guard let found = state.customer(of: id) else {
            return .failure(HTTPResponseBox(Self.error(.transactionIdNotFound, "Transaction id not found.")))
        }
        return .success(found)
    }

    func signFailure(_ error: any Error) -> HTTPResponse {
        Self.error(.generalInternal, "the store could not sign its answer: \(error)")
    }

    /// Get Transaction Info: `GET /inApps/v1/transactions/{transactionId}`.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/get-transaction-info
    func transactionInfo(_ id: String) -> HTTPResponse {
        switch customer(id) {
        case .failure(let box): return box.response
        case .success(let found):
            do {
                let jws = try found.store.withStore { store throws -> String? in
                    guard let transaction = store.transaction(id) else { return nil }
                    var signed = AppStoreSimulator.SignedThisStep()
                    return try store.signedTransaction(transaction, signer, &signed)
                }
                return Self.json(200, TransactionInfoResponse(signedTransactionInfo: jws))
            } catch {
                return signFailure(error)
            }
        }
    }

    /// Get Transaction History (v2): `GET /inApps/v2/history/{transactionId}`, every transaction of the customer in
    /// any state, 20 a page, sorted by when each last changed (`sort` ASCENDING, the default, or DESCENDING), with
    /// the filters `productId`, `productType`, `subscriptionGroupIdentifier`, `inAppOwnershipType`, `revoked`,
    /// `startDate` and `endDate`; `revision` continues from a page.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/get-transaction-history
    func history(_ id: String, _ request: HTTPRequest) -> HTTPResponse {
        let found: (caseID: String, account: String, store: SimulatedStore)
        switch customer(id) {
        case .failure(let box): return box.response
        case .success(let value): found = value
        }
        let sort = request.query("sort").last ?? "ASCENDING"
        guard sort == "ASCENDING" || sort == "DESCENDING" else { return Self.error(.init(rawValue: 4_000_021), "Invalid sort.") }
        let typeNames: [String: ProductTypeName] = ["AUTO_RENEWABLE": .autoRenewable, "NON_RENEWABLE": .nonRenewable,
                                                    "CONSUMABLE": .consumable, "NON_CONSUMABLE": .nonConsumable]
        var types: Set<ProductTypeName> = []
        for name in request.query("productType") {
            guard let type = typeNames[name] else { return Self.error(.init(rawValue: 4_000_022), "Invalid product type.") }
            types.insert(type)
        }
        let ownership = request.query("inAppOwnershipType").last
        if let ownership, ownership != "PURCHASED", ownership != "FAMILY_SHARED" {
            return Self.error(.init(rawValue: 4_000_026), "Invalid in-app ownership type.")
        }
        // Apple's Python library writes True and False.
        let revoked = request.query("revoked").last?.lowercased()
        if let revoked, revoked != "true", revoked != "false" { return Self.error(.init(rawValue: 4_000_030), "Invalid revoked.") }
        var window: (start: Int64?, end: Int64?) = (nil, nil)
        if let text = request.query("startDate").last {
            guard let value = StrictDecimal.int64(text) else { return Self.error(.init(rawValue: 4_000_015), "Invalid start date.") }
            window.start = value
        }
        if let text = request.query("endDate").last {
            guard let value = StrictDecimal.int64(text) else { return Self.error(.init(rawValue: 4_000_016), "Invalid end date.") }
            window.end = value
        }
        if let start = window.start, let end = window.end, start >= end {
            return Self.error(.init(rawValue: 4_000_013), "Start date after end date.")
        }
        let productIds = Set(request.query("productId"))
        let groups = Set(request.query("subscriptionGroupIdentifier"))
        let revision = request.query("revision").last
        do {
            let answer = try found.store.withStore { store throws -> HTTPResponse in
                var matching = store.transactions(account: found.account).filter { transaction in
                    (productIds.isEmpty || productIds.contains(transaction.productId))
                        && (types.isEmpty || types.contains(ProductTypeName(transaction.productType)))
                        && (groups.isEmpty || transaction.subscriptionGroupIdentifier.map(groups.contains) == true)
                        && (ownership == nil || transaction.inAppOwnershipType == ownership)
                        && (revoked == nil || transaction.isRevoked == (revoked == "true"))
                        && (window.start.map { transaction.purchaseDate >= $0 } ?? true)
                        && (window.end.map { transaction.purchaseDate < $0 } ?? true)
                }
                matching.sort { Self.modified($0) != Self.modified($1) ? Self.modified($0) < Self.modified($1) : $0.transactionId < $1.transactionId }
                if sort == "DESCENDING" { matching.reverse() }
                guard let page = PageToken.page(revision, count: matching.count, size: Self.pageSize, kind: "h", state: state) else {
                    return Self.error(.init(rawValue: 4_000_005), "Invalid request revision.")
                }
                var signed = AppStoreSimulator.SignedThisStep()
                let jws = try matching[page.range].map { try store.signedTransaction($0, signer, &signed) }
                return Self.json(200, HistoryResponse(revision: page.next, hasMore: page.hasMore, bundleId: store.configuration.bundleId,
                                                      appAppleId: store.configuration.appAppleId, environment: store.configuration.signedEnvironment.rawValue,
                                                      signedTransactions: jws))
            }
            return answer
        } catch {
            return signFailure(error)
        }
    }

    /// When a transaction last changed: its revocation, else its purchase.
    static func modified(_ transaction: StoreTransaction) -> Int64 {
        max(transaction.purchaseDate, transaction.revocationDate ?? 0)
    }

    /// Get All Subscription Statuses: `GET /inApps/v1/subscriptions/{transactionId}`, every subscription group of
    /// the customer with each subscription's status, latest transaction and renewal info; `status` (1–5,
    /// repeatable) filters.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/get-all-subscription-statuses
    func statuses(_ id: String, _ request: HTTPRequest) -> HTTPResponse {
        let found: (caseID: String, account: String, store: SimulatedStore)
        switch customer(id) {
        case .failure(let box): return box.response
        case .success(let value): found = value
        }
        var wanted: Set<Int> = []
        for text in request.query("status") {
            guard let value = StrictDecimal.int(text, digits: 1), (1...5).contains(value) else { return Self.error(.init(rawValue: 4_000_031), "Invalid status.") }
            wanted.insert(value)
        }
        do {
            return try found.store.withStore { store throws -> HTTPResponse in
                var signed = AppStoreSimulator.SignedThisStep()
                var items: [SubscriptionGroupIdentifierItem] = []
                for status in store.subscriptionStatuses(account: found.account) {
                    let code = status.state.statusCode
                    guard wanted.isEmpty || wanted.contains(code) else { continue }
                    let last = LastTransactionsItem(status: code, originalTransactionId: status.transaction.originalTransactionId,
                                                    signedTransactionInfo: try store.signedTransaction(status.transaction, signer, &signed),
                                                    signedRenewalInfo: try store.signedRenewalInfo(account: found.account, groupID: status.groupID,
                                                                                                   signer, &signed))
                    items.append(SubscriptionGroupIdentifierItem(subscriptionGroupIdentifier: status.groupID, lastTransactions: [last]))
                }
                return Self.json(200, StatusResponse(environment: store.configuration.signedEnvironment.rawValue, bundleId: store.configuration.bundleId,
                                                     appAppleId: store.configuration.appAppleId, data: items))
            }
        } catch {
            return signFailure(error)
        }
    }

    /// Get Refund History (v2): `GET /inApps/v2/refund/lookup/{transactionId}`, the customer's refunded and revoked
    /// transactions of every product type, ascending by `revocationDate`, 20 a page, `revision` continuing.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/get-refund-history
    func refunds(_ id: String, _ request: HTTPRequest) -> HTTPResponse {
        let found: (caseID: String, account: String, store: SimulatedStore)
        switch customer(id) {
        case .failure(let box): return box.response
        case .success(let value): found = value
        }
        do {
            return try found.store.withStore { store throws -> HTTPResponse in
                let refunded = store.transactions(account: found.account).filter(\.isRevoked)
                    .sorted { ($0.revocationDate ?? 0, $0.transactionId) < ($1.revocationDate ?? 0, $1.transactionId) }
                guard let page = PageToken.page(request.query("revision").last, count: refunded.count, size: Self.pageSize, kind: "r", state: state) else {
                    return Self.error(.init(rawValue: 4_000_005), "Invalid request revision.")
                }
                var signed = AppStoreSimulator.SignedThisStep()
                let jws = try refunded[page.range].map { try store.signedTransaction($0, signer, &signed) }
                return Self.json(200, RefundHistoryResponse(signedTransactions: jws, revision: page.next, hasMore: page.hasMore))
            }
        } catch {
            return signFailure(error)
        }
    }
}

/// An HTTP response carried as an error value.
struct HTTPResponseBox: Error {
    let response: HTTPResponse
    init(_ response: HTTPResponse) { self.response = response }
}

/// The App Store Server API's `productType` values.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/get-transaction-history
enum ProductTypeName: Hashable {
    case autoRenewable, nonRenewable, consumable, nonConsumable

    init(_ type: ProductType) {
        switch type {
        case .autoRenewable: self = .autoRenewable
        case .nonRenewable: self = .nonRenewable
        case .consumable: self = .consumable
        case .nonConsumable: self = .nonConsumable
        }
    }
}

/// Paging tokens (`revision`, `paginationToken`): opaque to clients, here a kind letter and an offset written
/// as the server writes it. Only a token this server answered (``ServerAPIState/issued(_:)``) starts a page:
/// `h+0`, `h00` or an offset no page ended at are tokens it never issued.
enum PageToken {
    /// The page a token starts, or `nil` for a token this server did not make.
    static func page(_ token: String?, count: Int, size: Int, kind: Character, state: ServerAPIState) -> (range: Range<Int>, next: String, hasMore: Bool)? {
        var start = 0
        if let token {
            guard token.first == kind, let offset = StrictDecimal.int(token.dropFirst(), digits: 9), "\(kind)\(offset)" == token,
                  offset <= count, state.issued(token) else { return nil }
            start = offset
        }
        let end = min(count, start + size)
        let next = "\(kind)\(end)"
        state.issue(token: next)
        return (start..<end, next, end < count)
    }
}

/// Numbers in a query: ASCII decimal digits only, as Apple writes them. `Int64(_:)` alone also takes `+1`.
enum StrictDecimal {
    /// The value of 1 to `digits` ASCII digits, or `nil` for anything else (a sign, a space, an empty string).
    static func int(_ text: some StringProtocol, digits: Int) -> Int? {
        guard !text.isEmpty, text.utf8.count <= digits, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(text)
    }

    /// As ``int(_:digits:)``, for Int64 values of at most 18 digits (which cannot overflow).
    static func int64(_ text: some StringProtocol) -> Int64? {
        int(text, digits: 18).map(Int64.init)
    }
}

/// Signs simulator payloads with the simulator PKI.
package struct SimulatorPayloadSigner: PayloadSigner {
    package let pki: SimulatorPKI

    package init(pki: SimulatorPKI) {
        self.pki = pki
    }

    package func sign(_ payload: Data) throws -> String {
        try pki.sign(payload: payload)
    }
}
