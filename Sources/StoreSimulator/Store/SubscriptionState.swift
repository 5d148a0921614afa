import AppStoreModels
import MatrixModel

/// The state of a subscription group's subscription.
/// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/renewalstate
public enum RenewalState: String, Sendable, Hashable, Codable, CaseIterable {
    case subscribed
    case expired
    case inBillingRetryPeriod
    case inGracePeriod
    case revoked

    /// The App Store Server API `status` code: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/status
    public var statusCode: Int {
        switch self {
        case .subscribed: 1
        case .expired: 2
        case .inBillingRetryPeriod: 3
        case .inGracePeriod: 4
        case .revoked: 5
        }
    }

    /// Whether the customer has access in this state (subscribed or in a billing grace period).
    public var grantsAccess: Bool { self == .subscribed || self == .inGracePeriod }
}

/// One account's subscription in one subscription group: the chain of transactions that share an
/// `originalTransactionId`, and its renewal info.
public struct SubscriptionState: Sendable, Hashable {
    public var account: String
    public var groupID: String
    public var originalTransactionId: String
    /// The product currently in service.
    public var productId: String
    /// The product the next renewal will be for (differs after a downgrade or a deferred crossgrade).
    public var autoRenewProductId: String
    public var autoRenewStatus: Bool
    public var latestTransactionId: String
    /// The end of the current period, ms since 1970.
    public var expiresDate: Int64
    public var state: RenewalState
    /// A billing failure waits for the next renewal (`failRenewal`); with or without grace period.
    public var pendingBillingIssue: Bool = false
    public var pendingBillingIssueGrace: Bool = false
    public var gracePeriodExpiresDate: Int64?
    /// When billing retry gives up, ms since 1970.
    public var billingRetryEndsDate: Int64?
    public var expirationIntent: Int?
    /// Renewals performed so far (for environment limits and evidence).
    public var renewalCount: Int = 0
    /// A price increase waits for the customer's consent (0) or was consented (1); `nil` for none.
    public var priceIncreaseStatus: Int?
    /// The start of the latest unbroken run of periods, ms since 1970.
    public var recentSubscriptionStartDate: Int64
    /// Remaining periods of a pay-as-you-go introductory offer after the current one.
    public var remainingOfferPeriods: Int = 0
    public var currentOfferType: Int?
    /// Why the subscription stopped renewing when the environment, not the customer, stopped it.
    public var environmentLimit: String?

    /// Whether the subscription is still a live chain (not expired or revoked).
    public var isActive: Bool { state != .expired && state != .revoked }

    /// The renewal info fields expectations and reports use.
    public var observedRenewalInfo: ObservedRenewalInfo {
        ObservedRenewalInfo(
            originalTransactionId: originalTransactionId, productId: productId, autoRenewStatus: autoRenewStatus ? 1 : 0,
            autoRenewProductId: autoRenewProductId, expirationIntent: expirationIntent,
            isInBillingRetryPeriod: state == .inBillingRetryPeriod || state == .inGracePeriod,
            gracePeriodExpiresDate: state == .inGracePeriod ? gracePeriodExpiresDate : nil,
            renewalDate: isActive ? expiresDate : nil)
    }

    /// The renewal info payload Apple signs.
    public func payload(environment: String, signedDate: Int64, renewalPrice: Int64, currency: String) -> JWSRenewalInfoDecodedPayload {
        let info = observedRenewalInfo
        var p = JWSRenewalInfoDecodedPayload()
        p.originalTransactionId = originalTransactionId
        p.productId = productId
        p.autoRenewProductId = autoRenewProductId
        p.autoRenewStatus = info.autoRenewStatus
        p.expirationIntent = expirationIntent
        p.isInBillingRetryPeriod = isActive ? info.isInBillingRetryPeriod : nil
        p.gracePeriodExpiresDate = info.gracePeriodExpiresDate.map { MillisecondsDate($0) }
        p.priceIncreaseStatus = priceIncreaseStatus
        p.signedDate = MillisecondsDate(signedDate)
        p.environment = environment
        p.recentSubscriptionStartDate = MillisecondsDate(recentSubscriptionStartDate)
        p.renewalDate = info.renewalDate.map { MillisecondsDate($0) }
        p.renewalPrice = renewalPrice
        p.currency = currency
        return p
    }
}

/// An App Store Server Notification V2 the simulated App Store sent.
/// Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype
public struct StoreNotification: Sendable, Hashable {
    public var notificationUUID: String
    public var notificationType: String
    public var subtype: String?
    /// The account whose transaction the notification is about.
    public var account: String
    public var transactionId: String?
    /// The subscription group, for subscription notifications (to attach renewal info and status).
    public var groupID: String?
    /// ms since 1970.
    public var signedDate: Int64

    /// `TYPE` or `TYPE/SUBTYPE`, as expectations write it.
    public var name: String {
        subtype.map { "\(notificationType)/\($0)" } ?? notificationType
    }
}
