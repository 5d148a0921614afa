import Foundation
import AppStoreAPI
import AppStoreModels
import MatrixEngine
import MatrixModel

/// What the App Store Server API says about a guided step: the notifications sent during it, the transactions
/// it created or changed (verified to Apple Root CA - G3), subscription states, and the products the account is
/// entitled to, when they can be worked out.
public struct ServerFindings: Sendable {
    /// `TYPE` or `TYPE/SUBTYPE` of each notification sent in the step's time window, for the account.
    public var notifications: [String] = []
    /// Transactions the step created or changed, decoded.
    public var transactions: [JWSTransactionDecodedPayload] = []
    /// Signed data as received, for the evidence.
    public var signedItems: [SignedItem] = []
    /// Subscription state per subscription group id, when an account transaction is known.
    public var subscriptionStatus: [String: String]?
    /// Products the account is entitled to by the server's data, when an account transaction is known.
    public var entitledProducts: Set<String>?
    /// A transaction id of the account, to look up its history in later steps.
    public var anchorTransactionId: String?

    public init() {}
}

/// Cross-checks guided steps with Apple's servers.
public protocol ServerCheck: Sendable {
    /// Looks up what happened in `window` (ms since 1970) for the account whose transactions include
    /// `anchorTransactionId` (or, before one is known, any transaction in the window).
    /// - Throws: ``AdapterError`` when the server cannot be asked (the step is then recorded as `error`).
    func findings(window: ClosedRange<Int64>, anchorTransactionId: String?, reportedTransactionId: String?,
                  matrix: Matrix, now: Int64) async throws -> ServerFindings
}

/// The App Store Server API implementation of ``ServerCheck``.
///
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/get-notification-history,
/// https://developer.apple.com/documentation/appstoreserverapi/get-transaction-history,
/// https://developer.apple.com/documentation/appstoreserverapi/get-all-subscription-statuses
public struct AppStoreServerCheck: ServerCheck {
    let client: AppStoreServerAPIClient
    /// Notifications can arrive some seconds after the event; the window is widened by this much, ms.
    let slack: Int64

    public init(client: AppStoreServerAPIClient, slackMilliseconds: Int64 = 5_000) {
        self.client = client
        self.slack = slackMilliseconds
    }

    public func findings(window: ClosedRange<Int64>, anchorTransactionId: String?, reportedTransactionId: String?,
                         matrix: Matrix, now: Int64) async throws -> ServerFindings {
        do {
            return try await lookUp(window: window, anchor: anchorTransactionId, reported: reportedTransactionId, matrix: matrix, now: now)
        } catch {
            throw AdapterError("the App Store Server API could not be asked: \(error.description)")
        }
    }

    func lookUp(window: ClosedRange<Int64>, anchor: String?, reported: String?, matrix: Matrix,
                now: Int64) async throws(AppStoreAPIError) -> ServerFindings {
        var findings = ServerFindings()
        var anchorId = anchor
        if let reported {
            let transaction = try await client.transactionInfo(transactionId: reported)
            findings.transactions.append(transaction.payload)
            findings.signedItems.append(transaction.signedItem)
            anchorId = anchorId ?? reported
        }
        var query = NotificationHistoryQuery(startDate: MillisecondsDate(window.lowerBound - slack),
                                             endDate: MillisecondsDate(window.upperBound + slack))
        // With a transaction of the account, the history is limited to that customer.
        if let anchorId { query.transactionId = anchorId }
        for record in try await client.notificationHistory(query) {
            findings.notifications.append(record.typeAndSubtype)
            findings.signedItems.append(record.notification.signedItem)
            if let transaction = record.transaction {
                findings.transactions.append(transaction.payload)
                anchorId = anchorId ?? transaction.payload.transactionId
            }
        }
        findings.anchorTransactionId = anchorId
        guard let anchorId else { return findings }
        let history = try await client.transactionHistory(transactionId: anchorId)
        let statuses = try await client.allSubscriptionStatuses(transactionId: anchorId)
        findings.subscriptionStatus = Dictionary(statuses.groups.map { group in
            (group.subscriptionGroupIdentifier, group.lastTransactions.first?.statusName ?? "none")
        }, uniquingKeysWith: { first, _ in first })
        findings.entitledProducts = Self.entitlements(history: history.transactions.map(\.payload), statuses: statuses,
                                                      matrix: matrix, now: now)
        return findings
    }

    /// The products the server's data entitles the account to, by the rules of `currentEntitlements`:
    /// non-consumables not revoked, subscriptions active or in a grace period, non-renewing subscriptions within
    /// the duration the app gives them.
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/currententitlements
    static func entitlements(history: [JWSTransactionDecodedPayload], statuses: SubscriptionStatuses, matrix: Matrix,
                             now: Int64) -> Set<String> {
        var products = Set<String>()
        var latest: [String: JWSTransactionDecodedPayload] = [:]
        for transaction in history {
            guard let product = transaction.productId else { continue }
            if let existing = latest[product], (existing.purchaseDate ?? 0) > (transaction.purchaseDate ?? 0) { continue }
            latest[product] = transaction
        }
        for (product, transaction) in latest where transaction.revocationDate == nil {
            switch matrix.catalog.product(product)?.type {
            case .nonConsumable:
                products.insert(product)
            case .nonRenewable:
                let spec = matrix.nonRenewing[product]
                if let spec, let purchased = transaction.purchaseDate, spec.duration.added(to: purchased.milliseconds) > now {
                    products.insert(product)
                }
            default:
                break
            }
        }
        for group in statuses.groups {
            for last in group.lastTransactions where last.status == 1 || last.status == 4 {
                if let product = last.transaction?.payload.productId, last.transaction?.payload.revocationDate == nil {
                    products.insert(product)
                }
            }
        }
        return products
    }
}
