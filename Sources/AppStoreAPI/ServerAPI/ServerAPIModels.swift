import AppStoreModels

// The App Store Server API's request and response bodies, with Apple's field names. Every member is optional
// so that an answer missing one still decodes; the client checks what it needs.

/// The body of Get Transaction Info.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/transactioninforesponse
public struct TransactionInfoResponse: Sendable, Hashable, Codable {
    /// The transaction, signed by Apple (JWS).
    public var signedTransactionInfo: String?

    /// Creates a value; the loopback App Store Server API answers with it.
    public init(signedTransactionInfo: String? = nil) {
        self.signedTransactionInfo = signedTransactionInfo
    }
}

/// One page of Get Transaction History.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/historyresponse
public struct HistoryResponse: Sendable, Hashable, Codable {
    /// The token for the next page.
    public var revision: String?
    /// Whether more pages follow.
    public var hasMore: Bool?
    /// The app's bundle id.
    public var bundleId: String?
    /// The app's Apple id.
    public var appAppleId: Int64?
    /// `Sandbox` or `Production`.
    public var environment: String?
    /// Up to 20 signed transactions.
    public var signedTransactions: [String]?

    /// Creates a value; the loopback App Store Server API answers with it.
    public init(revision: String? = nil, hasMore: Bool? = nil, bundleId: String? = nil, appAppleId: Int64? = nil, environment: String? = nil, signedTransactions: [String]? = nil) {
        self.revision = revision
        self.hasMore = hasMore
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environment = environment
        self.signedTransactions = signedTransactions
    }
}

/// One page of Get Refund History.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/refundhistoryresponse
public struct RefundHistoryResponse: Sendable, Hashable, Codable {
    /// Up to 20 signed transactions, ascending by `revocationDate`.
    public var signedTransactions: [String]?
    /// The token for the next page.
    public var revision: String?
    /// Whether more pages follow.
    public var hasMore: Bool?

    /// Creates a value; the loopback App Store Server API answers with it.
    public init(signedTransactions: [String]? = nil, revision: String? = nil, hasMore: Bool? = nil) {
        self.signedTransactions = signedTransactions
        self.revision = revision
        self.hasMore = hasMore
    }
}

/// The body of Get All Subscription Statuses.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/statusresponse
public struct StatusResponse: Sendable, Hashable, Codable {
    /// `Sandbox` or `Production`.
    public var environment: String?
    /// The app's bundle id.
    public var bundleId: String?
    /// The app's Apple id.
    public var appAppleId: Int64?
    /// One item per subscription group.
    public var data: [SubscriptionGroupIdentifierItem]?

    /// Creates a value; the loopback App Store Server API answers with it.
    public init(environment: String? = nil, bundleId: String? = nil, appAppleId: Int64? = nil, data: [SubscriptionGroupIdentifierItem]? = nil) {
        self.environment = environment
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.data = data
    }
}

/// A subscription group's latest transactions.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/subscriptiongroupidentifieritem
public struct SubscriptionGroupIdentifierItem: Sendable, Hashable, Codable {
    /// The group's identifier.
    public var subscriptionGroupIdentifier: String?
    /// The latest transaction and renewal info of each subscription in the group.
    public var lastTransactions: [LastTransactionsItem]?

    /// Creates a value; the loopback App Store Server API answers with it.
    public init(subscriptionGroupIdentifier: String? = nil, lastTransactions: [LastTransactionsItem]? = nil) {
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.lastTransactions = lastTransactions
    }
}

/// The latest transaction and renewal info of one subscription.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/lasttransactionsitem
public struct LastTransactionsItem: Sendable, Hashable, Codable {
    /// 1 active, 2 expired, 3 billing retry, 4 billing grace period, 5 revoked.
    public var status: Int?
    /// The subscription's original transaction id.
    public var originalTransactionId: String?
    /// The latest transaction (JWS).
    public var signedTransactionInfo: String?
    /// The renewal info (JWS).
    public var signedRenewalInfo: String?

    /// Creates a value; the loopback App Store Server API answers with it.
    public init(status: Int? = nil, originalTransactionId: String? = nil, signedTransactionInfo: String? = nil, signedRenewalInfo: String? = nil) {
        self.status = status
        self.originalTransactionId = originalTransactionId
        self.signedTransactionInfo = signedTransactionInfo
        self.signedRenewalInfo = signedRenewalInfo
    }
}

/// The body of Get Notification History.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryrequest
public struct NotificationHistoryRequest: Sendable, Hashable, Codable {
    /// Start of the window (ms since 1970); at most 180 days ago.
    public var startDate: MillisecondsDate
    /// End of the window (ms since 1970), after `startDate`.
    public var endDate: MillisecondsDate
    /// Only notifications of this `notificationType`.
    public var notificationType: String?
    /// Only notifications of this `subtype` (needs `notificationType`).
    public var notificationSubtype: String?
    /// Only the customer who owns this transaction.
    public var transactionId: String?
    /// Only notifications that did not reach the server.
    public var onlyFailures: Bool?
}

/// One page of Get Notification History.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryresponse
public struct NotificationHistoryResponse: Sendable, Hashable, Codable {
    /// The token for the next page.
    public var paginationToken: String?
    /// Whether more pages follow.
    public var hasMore: Bool?
    /// Up to 20 notifications.
    public var notificationHistory: [NotificationHistoryResponseItem]?

    /// Creates a value; the loopback App Store Server API answers with it.
    public init(paginationToken: String? = nil, hasMore: Bool? = nil, notificationHistory: [NotificationHistoryResponseItem]? = nil) {
        self.paginationToken = paginationToken
        self.hasMore = hasMore
        self.notificationHistory = notificationHistory
    }
}

/// One notification and Apple's attempts to deliver it.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryresponseitem
public struct NotificationHistoryResponseItem: Sendable, Hashable, Codable {
    /// The notification (JWS).
    public var signedPayload: String?
    /// Up to six delivery attempts.
    public var sendAttempts: [SendAttemptItem]?

    /// Creates a value; the loopback App Store Server API answers with it.
    public init(signedPayload: String? = nil, sendAttempts: [SendAttemptItem]? = nil) {
        self.signedPayload = signedPayload
        self.sendAttempts = sendAttempts
    }
}

/// One attempt to deliver a notification.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/sendattemptitem
public struct SendAttemptItem: Sendable, Hashable, Codable {
    /// When (ms since 1970).
    public var attemptDate: MillisecondsDate?
    /// `SUCCESS`, `TIMED_OUT`, `TLS_ISSUE`, `NO_RESPONSE`, `UNSUCCESSFUL_HTTP_RESPONSE_CODE`, … (raw).
    public var sendAttemptResult: String?

    /// Creates an attempt.
    public init(attemptDate: MillisecondsDate? = nil, sendAttemptResult: String? = nil) {
        self.attemptDate = attemptDate
        self.sendAttemptResult = sendAttemptResult
    }
}

/// The body of Request a Test Notification.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/sendtestnotificationresponse
public struct SendTestNotificationResponse: Sendable, Hashable, Codable {
    /// The token to ask for the notification's delivery status.
    public var testNotificationToken: String?

    /// Creates a value; the loopback App Store Server API answers with it.
    public init(testNotificationToken: String? = nil) {
        self.testNotificationToken = testNotificationToken
    }
}

/// The body of Get Test Notification Status.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/checktestnotificationresponse
public struct CheckTestNotificationResponse: Sendable, Hashable, Codable {
    /// The test notification (JWS).
    public var signedPayload: String?
    /// The delivery attempts.
    public var sendAttempts: [SendAttemptItem]?

    /// Creates a value; the loopback App Store Server API answers with it.
    public init(signedPayload: String? = nil, sendAttempts: [SendAttemptItem]? = nil) {
        self.signedPayload = signedPayload
        self.sendAttempts = sendAttempts
    }
}

/// The body of an App Store Server API error.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/error-codes
public struct ServerAPIErrorPayload: Sendable, Hashable, Codable {
    /// The numeric code, e.g. 4040010.
    public var errorCode: Int64?
    /// Apple's text.
    public var errorMessage: String?

    /// Creates a value; the loopback App Store Server API answers with it.
    public init(errorCode: Int64? = nil, errorMessage: String? = nil) {
        self.errorCode = errorCode
        self.errorMessage = errorMessage
    }
}
