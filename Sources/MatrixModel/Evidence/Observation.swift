import AppStoreModels

/// What an environment saw after a step, from the acting account's point of view.
///
/// The local environment, external drivers and guided runs all answer in this shape.
public struct Observation: Sendable, Hashable, Codable {
    /// Tiers the app grants, sorted.
    public var access: [String]
    /// Product IDs in `Transaction.currentEntitlements`, sorted.
    public var entitlements: [String]
    /// The step's result, for steps that have one (see ``Expectation/result``).
    public var result: String?
    /// State per subscription group name, for groups the account has subscribed to.
    public var subscriptionStatus: [String: String]
    /// Consumable balances the app holds.
    public var balance: [String: Int]
    /// Server notifications emitted since the previous step, `TYPE` or `TYPE/SUBTYPE`, in emission order.
    public var notifications: [String]
    /// Renewal transactions the account has received since the case started.
    public var renewals: Int
    /// The latest transaction of every product the account has a transaction for, in product order.
    public var transactions: [ObservedTransaction]
    /// Renewal info per subscription group name.
    public var renewalInfo: [String: ObservedRenewalInfo]
    /// Whether the account may use an introductory offer, per subscription group name
    /// (`Product.SubscriptionInfo.isEligibleForIntroOffer`).
    public var eligibleForIntroOffer: [String: Bool]
    /// The price the app shows per product ID (`"$4.99"`), when the app reports it.
    public var displayPrice: [String: String]
    /// The introductory offer StoreKit describes per auto-renewable product ID: `none` or a payment mode.
    public var introductoryOffer: [String: String]
    /// Whether the environment sends App Store Server Notifications; `nil` when it cannot tell (a
    /// `serverNotifications` expectation is then not judged).
    public var serverNotifications: Bool?
    /// IDs of transactions this step created or changed.
    public var transactionIds: [String]
    /// Signed data (compact JWS) this step produced: transactions, renewal infos and notifications.
    public var signedData: [SignedItem]
    /// Disagreements between the environment's observers (a tester's report against the App Store Server API),
    /// each a sentence showing both sides; any makes the step fail.
    public var conflicts: [String]?
    /// Expectation fields this environment cannot observe (a person sees access, not `currentEntitlements`);
    /// they are not judged.
    public var notObserved: [String]?
    /// What the app told the user, when it told something (e.g. "Nothing to restore").
    public var message: String?
    /// What the store or the environment said about the step, never the app's words: an environment limit that
    /// stopped renewals, the app not running (reports show it as the store's).
    public var storeMessage: String?
    /// The store's clock after the step, ms since 1970.
    public var storeTime: Int64?
    /// In a `server` run: the notifications posted to the team's backend and its access answers.
    public var server: ServerExchange?

    public init(access: [String] = [], entitlements: [String] = [], result: String? = nil,
                subscriptionStatus: [String: String] = [:], balance: [String: Int] = [:], notifications: [String] = [],
                renewals: Int = 0, transactions: [ObservedTransaction] = [], renewalInfo: [String: ObservedRenewalInfo] = [:],
                eligibleForIntroOffer: [String: Bool] = [:], displayPrice: [String: String] = [:], introductoryOffer: [String: String] = [:],
                serverNotifications: Bool? = nil, transactionIds: [String] = [], signedData: [SignedItem] = [], notObserved: [String]? = nil,
                message: String? = nil, storeTime: Int64? = nil) {
        self.access = access
        self.entitlements = entitlements
        self.result = result
        self.subscriptionStatus = subscriptionStatus
        self.balance = balance
        self.notifications = notifications
        self.renewals = renewals
        self.transactions = transactions
        self.renewalInfo = renewalInfo
        self.eligibleForIntroOffer = eligibleForIntroOffer
        self.displayPrice = displayPrice
        self.introductoryOffer = introductoryOffer
        self.serverNotifications = serverNotifications
        self.transactionIds = transactionIds
        self.signedData = signedData
        self.notObserved = notObserved
        self.message = message
        self.storeTime = storeTime
    }

    private enum CodingKeys: String, CodingKey {
        case access, entitlements, result, subscriptionStatus, balance, notifications, renewals, transactions, renewalInfo
        case eligibleForIntroOffer, displayPrice, introductoryOffer, serverNotifications, transactionIds, signedData, conflicts, notObserved
        case message, storeMessage, storeTime, server
    }

    /// Lenient decoding: drivers may leave out anything they cannot observe.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        access = try c.decodeIfPresent([String].self, forKey: .access) ?? []
        entitlements = try c.decodeIfPresent([String].self, forKey: .entitlements) ?? []
        result = try c.decodeIfPresent(String.self, forKey: .result)
        subscriptionStatus = try c.decodeIfPresent([String: String].self, forKey: .subscriptionStatus) ?? [:]
        balance = try c.decodeIfPresent([String: Int].self, forKey: .balance) ?? [:]
        notifications = try c.decodeIfPresent([String].self, forKey: .notifications) ?? []
        renewals = try c.decodeIfPresent(Int.self, forKey: .renewals) ?? 0
        transactions = try c.decodeIfPresent([ObservedTransaction].self, forKey: .transactions) ?? []
        renewalInfo = try c.decodeIfPresent([String: ObservedRenewalInfo].self, forKey: .renewalInfo) ?? [:]
        eligibleForIntroOffer = try c.decodeIfPresent([String: Bool].self, forKey: .eligibleForIntroOffer) ?? [:]
        displayPrice = try c.decodeIfPresent([String: String].self, forKey: .displayPrice) ?? [:]
        introductoryOffer = try c.decodeIfPresent([String: String].self, forKey: .introductoryOffer) ?? [:]
        serverNotifications = try c.decodeIfPresent(Bool.self, forKey: .serverNotifications)
        transactionIds = try c.decodeIfPresent([String].self, forKey: .transactionIds) ?? []
        signedData = try c.decodeIfPresent([SignedItem].self, forKey: .signedData) ?? []
        notObserved = try c.decodeIfPresent([String].self, forKey: .notObserved)
        // Fields newer than some drivers: left out, they are not observed rather than observed empty.
        // (`serverNotifications` left out is `nil`, which says the same.)
        let unreported = [(CodingKeys.displayPrice, "displayPrice"), (.introductoryOffer, "introductoryOffer")]
            .filter { !c.contains($0.0) }.map(\.1)
        if !unreported.isEmpty { notObserved = (notObserved ?? []) + unreported.filter { !(notObserved ?? []).contains($0) } }
        conflicts = try c.decodeIfPresent([String].self, forKey: .conflicts)
        message = try c.decodeIfPresent(String.self, forKey: .message)
        storeMessage = try c.decodeIfPresent(String.self, forKey: .storeMessage)
        storeTime = try c.decodeIfPresent(Int64.self, forKey: .storeTime)
        if let storeTime, !ObservedTransaction.dateRange.contains(storeTime) {
            throw DecodingError.dataCorruptedError(forKey: .storeTime, in: c, debugDescription: "storeTime \(storeTime) is not a date from 1970 to 9999 (ms since 1970)")
        }
        server = try c.decodeIfPresent(ServerExchange.self, forKey: .server)
    }
}

/// The fields of a transaction that expectations and reports use, with Apple's names and units.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload
public struct ObservedTransaction: Sendable, Hashable, Codable {
    public var transactionId: String
    public var originalTransactionId: String
    public var productId: String
    /// ms since 1970.
    public var purchaseDate: Int64
    /// ms since 1970, for auto-renewable subscriptions.
    public var expiresDate: Int64?
    /// `PURCHASED` or `FAMILY_SHARED`.
    public var inAppOwnershipType: String
    public var isUpgraded: Bool
    /// ms since 1970.
    public var revocationDate: Int64?
    public var revocationReason: Int?
    /// `PURCHASE` or `RENEWAL`.
    public var transactionReason: String?
    public var offerType: Int?
    public var quantity: Int
    /// The price charged, milliunits of ``currency`` (0 for a free trial or a Family Sharing copy).
    public var price: Int64?
    /// ISO 4217 code of ``price``.
    public var currency: String?

    public init(transactionId: String, originalTransactionId: String, productId: String, purchaseDate: Int64,
                expiresDate: Int64? = nil, inAppOwnershipType: String = "PURCHASED", isUpgraded: Bool = false,
                revocationDate: Int64? = nil, revocationReason: Int? = nil, transactionReason: String? = nil,
                offerType: Int? = nil, quantity: Int = 1, price: Int64? = nil, currency: String? = nil) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.inAppOwnershipType = inAppOwnershipType
        self.isUpgraded = isUpgraded
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.transactionReason = transactionReason
        self.offerType = offerType
        self.quantity = quantity
        self.price = price
        self.currency = currency
    }

    /// The dates an observed transaction may carry, ms since 1970: from 1970 to the end of 9999. Evidence and
    /// drivers are untrusted, and the judge computes with these dates.
    public static let dateRange: ClosedRange<Int64> = 0 ... 253_402_300_799_999

    private enum CodingKeys: String, CodingKey {
        case transactionId, originalTransactionId, productId, purchaseDate, expiresDate, inAppOwnershipType, isUpgraded
        case revocationDate, revocationReason, transactionReason, offerType, quantity, price, currency
    }

    /// - Throws: `DecodingError.dataCorrupted` for a date outside ``dateRange``.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func date(_ key: CodingKeys, _ value: Int64?) throws -> Int64? {
            guard let value, !Self.dateRange.contains(value) else { return value }
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "\(key.stringValue) \(value) is not a date from 1970 to 9999 (ms since 1970)")
        }
        transactionId = try c.decode(String.self, forKey: .transactionId)
        originalTransactionId = try c.decode(String.self, forKey: .originalTransactionId)
        productId = try c.decode(String.self, forKey: .productId)
        purchaseDate = try date(.purchaseDate, try c.decode(Int64.self, forKey: .purchaseDate)) ?? 0
        expiresDate = try date(.expiresDate, try c.decodeIfPresent(Int64.self, forKey: .expiresDate))
        inAppOwnershipType = try c.decode(String.self, forKey: .inAppOwnershipType)
        isUpgraded = try c.decode(Bool.self, forKey: .isUpgraded)
        revocationDate = try date(.revocationDate, try c.decodeIfPresent(Int64.self, forKey: .revocationDate))
        revocationReason = try c.decodeIfPresent(Int.self, forKey: .revocationReason)
        transactionReason = try c.decodeIfPresent(String.self, forKey: .transactionReason)
        offerType = try c.decodeIfPresent(Int.self, forKey: .offerType)
        quantity = try c.decode(Int.self, forKey: .quantity)
        price = try c.decodeIfPresent(Int64.self, forKey: .price)
        currency = try c.decodeIfPresent(String.self, forKey: .currency)
    }
}

extension ObservedTransaction {
    /// The fields of a decoded App Store transaction; `nil` when it lacks an id, a product or a purchase date.
    public init?(payload: JWSTransactionDecodedPayload) {
        guard let id = payload.transactionId, let product = payload.productId, let purchased = payload.purchaseDate else { return nil }
        self.init(transactionId: id, originalTransactionId: payload.originalTransactionId ?? id, productId: product,
                  purchaseDate: purchased.milliseconds, expiresDate: payload.expiresDate?.milliseconds,
                  inAppOwnershipType: payload.inAppOwnershipType ?? "PURCHASED", isUpgraded: payload.isUpgraded ?? false,
                  revocationDate: payload.revocationDate?.milliseconds, revocationReason: payload.revocationReason,
                  transactionReason: payload.transactionReason, offerType: payload.offerType, quantity: payload.quantity ?? 1,
                  price: payload.price, currency: payload.currency)
    }
}

/// The fields of a subscription's renewal info that expectations and reports use.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/jwsrenewalinfodecodedpayload
public struct ObservedRenewalInfo: Sendable, Hashable, Codable {
    public var originalTransactionId: String
    public var productId: String
    /// 1 on, 0 off.
    public var autoRenewStatus: Int
    public var autoRenewProductId: String
    public var expirationIntent: Int?
    public var isInBillingRetryPeriod: Bool
    /// ms since 1970.
    public var gracePeriodExpiresDate: Int64?
    /// ms since 1970.
    public var renewalDate: Int64?

    public init(originalTransactionId: String, productId: String, autoRenewStatus: Int, autoRenewProductId: String,
                expirationIntent: Int? = nil, isInBillingRetryPeriod: Bool = false, gracePeriodExpiresDate: Int64? = nil,
                renewalDate: Int64? = nil) {
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.autoRenewStatus = autoRenewStatus
        self.autoRenewProductId = autoRenewProductId
        self.expirationIntent = expirationIntent
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.renewalDate = renewalDate
    }
}

extension ObservedRenewalInfo {
    /// The fields of a decoded renewal info; `nil` when it lacks the original transaction or the product. A missing
    /// `isInBillingRetryPeriod` is false, a missing `autoRenewStatus` 0.
    public init?(payload: JWSRenewalInfoDecodedPayload) {
        guard let original = payload.originalTransactionId, let product = payload.productId else { return nil }
        self.init(originalTransactionId: original, productId: product, autoRenewStatus: payload.autoRenewStatus ?? 0,
                  autoRenewProductId: payload.autoRenewProductId ?? product, expirationIntent: payload.expirationIntent,
                  isInBillingRetryPeriod: payload.isInBillingRetryPeriod ?? false,
                  gracePeriodExpiresDate: payload.gracePeriodExpiresDate?.milliseconds, renewalDate: payload.renewalDate?.milliseconds)
    }
}

/// One piece of signed data (compact JWS) with what it is.
public struct SignedItem: Sendable, Hashable, Codable {
    /// `transaction`, `renewalInfo`, `notification` or `appTransaction`.
    public var kind: String
    /// The compact JWS.
    public var jws: String

    public init(kind: String, jws: String) {
        self.kind = kind
        self.jws = jws
    }
}
