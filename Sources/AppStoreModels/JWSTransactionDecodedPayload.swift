/// A transaction as the App Store signs it: the payload of a `signedTransactionInfo` JWS.
///
/// Field names, units and raw string values are Apple's: dates in ms since 1970, `price` in milliunits of
/// `currency`, identifiers as strings. Enumerated values stay raw strings and integers so that values Apple
/// adds later survive a round trip.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload
public struct JWSTransactionDecodedPayload: Sendable, Hashable, Codable {
    public var transactionId: String?
    public var originalTransactionId: String?
    /// A new value for every subscription period (purchase and each renewal).
    public var webOrderLineItemId: String?
    public var bundleId: String?
    public var productId: String?
    public var subscriptionGroupIdentifier: String?
    public var purchaseDate: MillisecondsDate?
    public var originalPurchaseDate: MillisecondsDate?
    public var expiresDate: MillisecondsDate?
    public var quantity: Int?
    /// `Auto-Renewable Subscription`, `Non-Consumable`, `Consumable`, `Non-Renewing Subscription`.
    public var type: String?
    /// A UUID the app set at purchase time.
    public var appAccountToken: String?
    /// `PURCHASED` or `FAMILY_SHARED`.
    public var inAppOwnershipType: String?
    public var signedDate: MillisecondsDate?
    /// 0 other, 1 a problem with the app.
    public var revocationReason: Int?
    public var revocationDate: MillisecondsDate?
    /// `REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE`.
    public var revocationType: String?
    /// Milliunits of a full refund (100000 = 100 %).
    public var revocationPercentage: Int?
    /// Whether the customer upgraded to another subscription that replaced this one.
    public var isUpgraded: Bool?
    /// 1 introductory, 2 promotional, 3 offer code, 4 win-back.
    public var offerType: Int?
    public var offerIdentifier: String?
    /// `FREE_TRIAL`, `PAY_AS_YOU_GO`, `PAY_UP_FRONT`.
    public var offerDiscountType: String?
    /// ISO 8601 duration of the offer.
    public var offerPeriod: String?
    /// `Sandbox`, `Production`, `Xcode`, `LocalTesting`.
    public var environment: String?
    /// `PURCHASE` or `RENEWAL`.
    public var transactionReason: String?
    /// ISO 3166-1 alpha-3 country code.
    public var storefront: String?
    public var storefrontId: String?
    /// Milliunits of `currency`.
    public var price: Int64?
    /// ISO 4217 currency code.
    public var currency: String?
    public var appTransactionId: String?

    public init() {}
}

/// The decoded payload of a subscription's `signedRenewalInfo`.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/jwsrenewalinfodecodedpayload
public struct JWSRenewalInfoDecodedPayload: Sendable, Hashable, Codable {
    /// 1 customer cancelled, 2 billing error, 3 price increase not consented, 4 product not for sale, 5 other.
    public var expirationIntent: Int?
    public var originalTransactionId: String?
    public var autoRenewProductId: String?
    public var productId: String?
    /// 1 on, 0 off.
    public var autoRenewStatus: Int?
    public var isInBillingRetryPeriod: Bool?
    /// 0 not yet responded, 1 consented (or no consent needed).
    public var priceIncreaseStatus: Int?
    public var gracePeriodExpiresDate: MillisecondsDate?
    public var offerType: Int?
    public var offerIdentifier: String?
    public var signedDate: MillisecondsDate?
    public var environment: String?
    public var recentSubscriptionStartDate: MillisecondsDate?
    public var renewalDate: MillisecondsDate?
    /// Milliunits of `currency`.
    public var renewalPrice: Int64?
    public var currency: String?
    public var offerDiscountType: String?
    public var eligibleWinBackOfferIds: [String]?
    public var appAccountToken: String?
    public var appTransactionId: String?
    public var offerPeriod: String?

    public init() {}
}

/// The decoded payload of an App Store Server Notification V2 (`signedPayload`).
/// Apple: https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload
public struct ResponseBodyV2DecodedPayload: Sendable, Hashable, Codable {
    public var notificationType: String?
    public var subtype: String?
    public var notificationUUID: String?
    public var data: NotificationData?
    /// In place of `data` for `RENEWAL_EXTENSION` / `SUMMARY`: the outcome of extending every subscriber's renewal date.
    public var summary: Summary?
    /// `"2.0"`.
    public var version: String?
    public var signedDate: MillisecondsDate?

    public init() {}

    /// The `data` object: the app, the environment, and the signed transaction and renewal info.
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/data
    public struct NotificationData: Sendable, Hashable, Codable {
        public var appAppleId: Int64?
        public var bundleId: String?
        public var bundleVersion: String?
        public var environment: String?
        public var signedTransactionInfo: String?
        public var signedRenewalInfo: String?
        /// 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
        public var status: Int?
        public var consumptionRequestReason: String?

        public init() {}
    }

    /// The `summary` object: how a renewal-date extension for all subscribers went.
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/summary
    public struct Summary: Sendable, Hashable, Codable {
        public var requestIdentifier: String?
        public var environment: String?
        public var appAppleId: Int64?
        public var bundleId: String?
        public var productId: String?
        /// ISO 3166-1 alpha-3 codes of the storefronts the extension covered.
        public var storefrontCountryCodes: [String]?
        public var failedCount: Int64?
        public var succeededCount: Int64?

        public init() {}
    }
}

/// The decoded payload of a signed app transaction.
/// Apple: https://developer.apple.com/documentation/storekit/apptransaction
public struct AppTransactionPayload: Sendable, Hashable, Codable {
    /// `Sandbox`, `Production`, `Xcode`, `LocalTesting`.
    public var receiptType: String?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var applicationVersion: String?
    public var versionExternalIdentifier: Int64?
    public var receiptCreationDate: MillisecondsDate?
    public var originalPurchaseDate: MillisecondsDate?
    public var originalApplicationVersion: String?
    public var deviceVerification: String?
    public var deviceVerificationNonce: String?
    public var preorderDate: MillisecondsDate?
    public var appTransactionId: String?
    public var originalPlatform: String?

    public init() {}
}
