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
    /// The regular price this subscriber renews the current product at, milliunits: the price when they
    /// subscribed, or the one they consented to.
    public var price: Int64
    /// A price increase waits for the customer's consent (0) or was consented (1); `nil` for none.
    public var priceIncreaseStatus: Int?
    /// The price a requested increase raises ``price`` to at the next renewal, milliunits.
    public var increasedPrice: Int64?
    /// The start of the latest run of periods without a lapse of more than 60 days, ms since 1970.
    public var recentSubscriptionStartDate: Int64
    /// The offer the next renewals use, if any: the rest of a pay-as-you-go introductory offer, or an offer
    /// redeemed for the active subscription or with a downgrade.
    public var upcomingOffer: UpcomingOffer?
    /// The offer the current period used, if any.
    public var currentOfferType: Int?
    /// The UUID the app attached to the purchase; renewals carry it.
    public var appAccountToken: String?
    /// Renewal-date extensions granted, their dates in ms since 1970 (at most two a year).
    public var extensionDates: [Int64] = []
    /// Why the subscription stopped renewing when the environment, not the customer, stopped it.
    public var environmentLimit: String?

    /// Whether the subscription is still a live chain (not expired or revoked).
    public var isActive: Bool { state != .expired && state != .revoked }

    /// The renewal info fields expectations and reports use.
    ///
    /// `isInBillingRetryPeriod` is true in billing retry and in a billing grace period (a grace period is the start
    /// of billing retry) and false otherwise, also after billing retry gave up, as the decision table of
    /// `isInBillingRetry` × `expirationReason` × `gracePeriodExpirationDate` has it; `renewalDate` is always the
    /// end of the latest period, also for expired and revoked subscriptions.
    /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/renewalinfo/isinbillingretry,
    /// https://developer.apple.com/documentation/appstoreservernotifications/renewaldate
    public var observedRenewalInfo: ObservedRenewalInfo {
        ObservedRenewalInfo(
            originalTransactionId: originalTransactionId, productId: productId, autoRenewStatus: autoRenewStatus ? 1 : 0,
            autoRenewProductId: autoRenewProductId, expirationIntent: expirationIntent,
            isInBillingRetryPeriod: state == .inBillingRetryPeriod || state == .inGracePeriod,
            gracePeriodExpiresDate: state == .inGracePeriod ? gracePeriodExpiresDate : nil,
            renewalDate: expiresDate)
    }
}

/// An offer that applies to the next renewals of a subscription.
public struct UpcomingOffer: Sendable, Hashable {
    /// The offer's terms per period.
    var use: SubscriptionOfferUse
    /// How many renewals it applies to.
    var periods: Int
    /// The product it applies to (an offer redeemed with a downgrade applies to the new product).
    var productId: String
}

/// What the next renewal of a subscription charges and for which product: the renewal info's `renewalPrice`,
/// `offerType`, `offerIdentifier`, `offerDiscountType` and `offerPeriod`.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/jwsrenewalinfodecodedpayload
public struct RenewalTerms: Sendable, Hashable {
    /// Milliunits of the storefront's currency.
    public var price: Int64
    /// The offer the next renewal uses, if any.
    var offer: SubscriptionOfferUse?
    /// 1 introductory, 2 promotional, 3 offer code, 4 win-back.
    public var offerType: Int? { offer?.offerType }
    public var offerIdentifier: String? { offer?.offerIdentifier }
}

/// A subscription's renewal info as it was at one moment: what a notification embeds and what `status` and
/// renewal-info queries answer.
public struct RenewalInfoSnapshot: Sendable, Hashable {
    public var subscription: SubscriptionState
    public var terms: RenewalTerms
    /// The offers a churned subscriber may redeem now (`eligibleWinBackOfferIds`).
    public var eligibleWinBackOfferIds: [String]
    public var appTransactionId: String?

    /// The renewal info payload Apple signs.
    public func payload(environment: String, signedDate: Int64, currency: String) -> JWSRenewalInfoDecodedPayload {
        let sub = subscription
        let info = sub.observedRenewalInfo
        var p = JWSRenewalInfoDecodedPayload()
        p.originalTransactionId = sub.originalTransactionId
        p.productId = sub.productId
        p.autoRenewProductId = sub.autoRenewProductId
        p.autoRenewStatus = info.autoRenewStatus
        p.expirationIntent = sub.expirationIntent
        p.isInBillingRetryPeriod = info.isInBillingRetryPeriod
        p.gracePeriodExpiresDate = info.gracePeriodExpiresDate.map { MillisecondsDate($0) }
        p.priceIncreaseStatus = sub.priceIncreaseStatus
        p.offerType = terms.offer?.offerType
        p.offerIdentifier = terms.offer?.offerIdentifier
        p.offerDiscountType = terms.offer?.discountType
        p.offerPeriod = terms.offer?.period
        p.signedDate = MillisecondsDate(signedDate)
        p.environment = environment
        p.recentSubscriptionStartDate = MillisecondsDate(sub.recentSubscriptionStartDate)
        p.renewalDate = info.renewalDate.map { MillisecondsDate($0) }
        p.renewalPrice = terms.price
        p.currency = currency
        p.eligibleWinBackOfferIds = eligibleWinBackOfferIds.isEmpty ? nil : eligibleWinBackOfferIds
        p.appAccountToken = sub.appAccountToken
        p.appTransactionId = appTransactionId
        return p
    }
}

/// An App Store Server Notification V2 the simulated App Store sent, with what it embeds as it was when its event
/// happened: when one step causes several events (twelve renewals, a member's renewal with the organizer's),
/// each notification carries the transaction, renewal info and status of its own moment.
/// Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype,
/// https://developer.apple.com/documentation/appstoreservernotifications/data
public struct StoreNotification: Sendable, Hashable {
    public var notificationUUID: String
    public var notificationType: String
    public var subtype: String?
    /// The account whose transaction the notification is about.
    public var account: String
    public var transactionId: String?
    /// The subscription group, for subscription notifications.
    public var groupID: String?
    /// ms since 1970: when the event happened.
    public var signedDate: Int64
    /// The transaction as it was at the event.
    public var transaction: StoreTransaction?
    /// The subscription's renewal info as it was at the event.
    public var renewalInfo: RenewalInfoSnapshot?
    /// The subscription's `status` at the event: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    public var status: Int?
    /// `RENEWAL_EXTENSION` / `SUMMARY`: the outcome of a renewal-date extension for all subscribers.
    public var summary: RenewalExtensionSummary?
    /// `CONSUMPTION_REQUEST`: the customer's reason for the refund request.
    public var consumptionRequestReason: String?

    /// `TYPE` or `TYPE/SUBTYPE`, as expectations write it.
    public var name: String {
        subtype.map { "\(notificationType)/\($0)" } ?? notificationType
    }
}

/// The `summary` of a `RENEWAL_EXTENSION` / `SUMMARY` notification.
/// Apple: https://developer.apple.com/documentation/appstoreservernotifications/summary
public struct RenewalExtensionSummary: Sendable, Hashable {
    public var requestIdentifier: String
    public var productId: String
    public var storefrontCountryCodes: [String]
    public var succeededCount: Int
    public var failedCount: Int
}
