/// What should be observed after a step. Every field is optional; only the fields given are judged.
public struct Expectation: Sendable, Hashable, Codable {
    /// The exact set of tiers the app grants.
    public var access: [String]?
    /// The exact set of product IDs in `Transaction.currentEntitlements`.
    public var entitlements: [String]?
    /// The step's result: a purchase result (`success`, `userCancelled`, `pending`, `failed`) or a restore
    /// result (`restored`, `nothingToRestore`, `failed`).
    public var result: String?
    /// Subscription state per subscription group name: `subscribed`, `expired`, `inBillingRetryPeriod`,
    /// `inGracePeriod`, `revoked`, or `none` for a group the account never subscribed to.
    public var subscriptionStatus: [String: String]?
    /// Consumable balances the app holds, by balance name.
    public var balance: [String: Int]?
    /// App Store Server Notifications V2 emitted since the previous step, as `TYPE` or `TYPE/SUBTYPE`, in any
    /// order; `[]` means none.
    public var notifications: [String]?
    /// How many renewal transactions the acting account has received since the case started.
    public var renewals: Int?
    /// Fields of the latest transaction of a product.
    public var transaction: TransactionExpectation?
    /// Fields of a subscription group's renewal info.
    public var renewalInfo: RenewalInfoExpectation?
    /// Introductory-offer eligibility per subscription group name.
    /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/iseligibleforintrooffer
    public var eligibleForIntroOffer: [String: Bool]?
    /// The price the app shows per product ID, as StoreKit formats it (`"$4.99"`): what the customer is told
    /// before they are charged (`transaction.price`).
    /// Apple: https://developer.apple.com/documentation/storekit/product/displayprice
    public var displayPrice: [String: String]?
    /// The introductory offer StoreKit describes per auto-renewable product ID: `none`, or its payment mode
    /// `freeTrial`, `payAsYouGo`, `payUpFront`.
    /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/introductoryoffer
    public var introductoryOffer: [String: String]?
    /// Whether the environment sends App Store Server Notifications at all: `false` for StoreKit Testing in
    /// Xcode, which has no App Store server.
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/environment
    public var serverNotifications: Bool?

    public init(access: [String]? = nil, entitlements: [String]? = nil, result: String? = nil,
                subscriptionStatus: [String: String]? = nil, balance: [String: Int]? = nil, notifications: [String]? = nil,
                renewals: Int? = nil, transaction: TransactionExpectation? = nil, renewalInfo: RenewalInfoExpectation? = nil,
                eligibleForIntroOffer: [String: Bool]? = nil, displayPrice: [String: String]? = nil,
                introductoryOffer: [String: String]? = nil, serverNotifications: Bool? = nil) {
        self.access = access
        self.entitlements = entitlements
        self.result = result
        self.subscriptionStatus = subscriptionStatus
        self.balance = balance
        self.notifications = notifications
        self.renewals = renewals
        self.transaction = transaction
        self.renewalInfo = renewalInfo
        self.eligibleForIntroOffer = eligibleForIntroOffer
        self.displayPrice = displayPrice
        self.introductoryOffer = introductoryOffer
        self.serverNotifications = serverNotifications
    }

    /// The names of the fields this expectation sets, as the matrix writes them (`access`, `balance`, …) and as
    /// an observation's `notObserved` names what it could not see.
    public var fieldNames: [String] {
        let fields: [(String, Bool)] = [
            ("access", access != nil), ("entitlements", entitlements != nil), ("result", result != nil),
            ("subscriptionStatus", subscriptionStatus != nil), ("balance", balance != nil), ("notifications", notifications != nil),
            ("renewals", renewals != nil), ("transaction", transaction != nil), ("renewalInfo", renewalInfo != nil),
            ("eligibleForIntroOffer", eligibleForIntroOffer != nil), ("displayPrice", displayPrice != nil),
            ("introductoryOffer", introductoryOffer != nil), ("serverNotifications", serverNotifications != nil),
        ]
        return fields.filter(\.1).map(\.0)
    }

    /// Purchase results a `result` expectation may name.
    /// Apple: https://developer.apple.com/documentation/storekit/product/purchaseresult
    public static let purchaseResults = ["success", "userCancelled", "pending", "failed"]
    /// Restore results a `result` expectation may name (`AppStore.sync()` and what the app makes of it).
    public static let restoreResults = ["restored", "nothingToRestore", "failed"]
    /// Subscription states a `subscriptionStatus` expectation may name.
    /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/renewalstate
    public static let subscriptionStates = ["subscribed", "expired", "inBillingRetryPeriod", "inGracePeriod", "revoked", "none"]
    /// What an `introductoryOffer` expectation may name: `none`, or a payment mode.
    /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptionoffer/paymentmode-swift.struct
    public static let introductoryOfferModes = ["none", "freeTrial", "payAsYouGo", "payUpFront"]
}

/// Fields of the latest transaction (for the acting account) of a product.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload
public struct TransactionExpectation: Sendable, Hashable, Codable {
    /// The product; defaults to the step's product.
    public var product: String?
    /// `PURCHASED` or `FAMILY_SHARED`.
    public var inAppOwnershipType: String?
    public var isUpgraded: Bool?
    /// Whether the transaction has a `revocationDate`.
    public var revoked: Bool?
    /// `revocationReason`: 0 other, 1 a problem in the app.
    public var revocationReason: Int?
    /// `PURCHASE` or `RENEWAL`.
    public var transactionReason: String?
    /// 1 introductory, 2 promotional, 3 offer code, 4 win-back.
    public var offerType: Int?
    /// The price charged, milliunits of the storefront's currency (`4990` for 4.99; 0 for a free trial).
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/price
    public var price: Int64?
    /// ISO 4217 code of the price's currency, e.g. `USD`.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/currency
    public var currency: String?
    /// `expiresDate` is this ISO 8601 duration after `purchaseDate`, as the environment's clock counts it (a
    /// `P1W` trial lasts three minutes at Sandbox's default rate).
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/expiresdate
    public var expiresAfter: ISO8601Duration?

    public init(product: String? = nil, inAppOwnershipType: String? = nil, isUpgraded: Bool? = nil, revoked: Bool? = nil,
                revocationReason: Int? = nil, transactionReason: String? = nil, offerType: Int? = nil, price: Int64? = nil,
                currency: String? = nil, expiresAfter: ISO8601Duration? = nil) {
        self.product = product
        self.inAppOwnershipType = inAppOwnershipType
        self.isUpgraded = isUpgraded
        self.revoked = revoked
        self.revocationReason = revocationReason
        self.transactionReason = transactionReason
        self.offerType = offerType
        self.price = price
        self.currency = currency
        self.expiresAfter = expiresAfter
    }
}

/// Fields of a subscription group's renewal info.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/jwsrenewalinfodecodedpayload
public struct RenewalInfoExpectation: Sendable, Hashable, Codable {
    /// The subscription group's name; defaults to the group of the step's product.
    public var group: String?
    /// 1 when the subscription renews automatically, 0 when the customer turned it off.
    public var autoRenewStatus: Int?
    public var autoRenewProductId: String?
    /// 1 customer cancelled, 2 billing error, 3 price increase declined, 4 product not for sale, 5 other.
    public var expirationIntent: Int?
    public var isInBillingRetryPeriod: Bool?

    public init(group: String? = nil, autoRenewStatus: Int? = nil, autoRenewProductId: String? = nil,
                expirationIntent: Int? = nil, isInBillingRetryPeriod: Bool? = nil) {
        self.group = group
        self.autoRenewStatus = autoRenewStatus
        self.autoRenewProductId = autoRenewProductId
        self.expirationIntent = expirationIntent
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
    }
}
