/// A customer's transaction history, every page read and every transaction verified.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/get-transaction-history
public struct TransactionHistory: Sendable, Hashable, Encodable {
    /// The app's bundle id, as Apple answered.
    public var bundleId: String?
    /// The app's Apple id, as Apple answered.
    public var appAppleId: Int64?
    /// `Sandbox` or `Production`, as Apple answered.
    public var environment: String?
    /// The transactions, in the order of the pages.
    public var transactions: [SignedTransaction]
    /// How many pages were read.
    public var pageCount: Int
}

/// The statuses of all of a customer's auto-renewable subscriptions, verified.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/get-all-subscription-statuses
public struct SubscriptionStatuses: Sendable, Hashable, Encodable {
    /// `Sandbox` or `Production`, as Apple answered.
    public var environment: String?
    /// The app's bundle id, as Apple answered.
    public var bundleId: String?
    /// The app's Apple id, as Apple answered.
    public var appAppleId: Int64?
    /// One entry per subscription group.
    public var groups: [SubscriptionGroupStatus]
}

/// One subscription group's subscriptions.
public struct SubscriptionGroupStatus: Sendable, Hashable, Encodable {
    /// The group's identifier.
    public var subscriptionGroupIdentifier: String
    /// The latest transaction and renewal info per subscription in the group.
    public var lastTransactions: [SubscriptionLastTransaction]
}

/// One subscription's status with its latest transaction and renewal info.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/lasttransactionsitem
public struct SubscriptionLastTransaction: Sendable, Hashable, Encodable {
    /// Apple's status: 1 active, 2 expired, 3 billing retry, 4 billing grace period, 5 revoked.
    public var status: Int
    /// The subscription's original transaction id.
    public var originalTransactionId: String?
    /// The latest transaction.
    public var transaction: SignedTransaction?
    /// The renewal info.
    public var renewalInfo: SignedRenewalInfo?

    /// StoreKit's name for ``status``: `subscribed`, `expired`, `inBillingRetryPeriod`, `inGracePeriod`,
    /// `revoked`, or `unknown(N)`.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/status
    public var statusName: String {
        switch status {
        case 1: "subscribed"
        case 2: "expired"
        case 3: "inBillingRetryPeriod"
        case 4: "inGracePeriod"
        case 5: "revoked"
        default: "unknown(\(status))"
        }
    }
}

/// One notification from the notification history, verified, with the transaction and renewal info it
/// carries (verified too) and Apple's delivery attempts.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryresponseitem
public struct NotificationHistoryRecord: Sendable, Hashable, Encodable {
    /// The notification.
    public var notification: SignedNotification
    /// `data.signedTransactionInfo`, when the notification has one.
    public var transaction: SignedTransaction?
    /// `data.signedRenewalInfo`, when the notification has one.
    public var renewalInfo: SignedRenewalInfo?
    /// Apple's attempts to deliver it to the app's server.
    public var sendAttempts: [SendAttemptItem]

    /// `TYPE` or `TYPE/SUBTYPE`, the form matrix expectations use.
    public var typeAndSubtype: String {
        let type = notification.payload.notificationType ?? "?"
        return notification.payload.subtype.map { "\(type)/\($0)" } ?? type
    }
}

/// The outcome of a test notification.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/get-test-notification-status
public struct TestNotificationStatus: Sendable, Hashable, Encodable {
    /// The notification Apple sent, verified.
    public var notification: SignedNotification?
    /// Apple's attempts to deliver it.
    public var sendAttempts: [SendAttemptItem]
}
