import Foundation
import AppStoreModels
import MatrixModel
import StoreSimulator

/// A transaction as StoreKit 2 hands it to the app: signed by the simulated App Store, a snapshot of the store
/// when it was handed out.
/// Apple: https://developer.apple.com/documentation/storekit/transaction
public struct Transaction: Identifiable, Hashable, Sendable {
    /// The transaction identifier.
    public let id: UInt64
    /// The identifier of the original purchase (the same for every renewal of a subscription).
    public let originalID: UInt64
    /// The identifier of subscription purchase events across devices, including renewals.
    public let webOrderLineItemID: String?
    public let productID: String
    /// The subscription group, for auto-renewable subscriptions.
    public let subscriptionGroupID: String?
    /// The app's bundle identifier.
    public let appBundleID: String
    public let purchaseDate: Date
    public let originalPurchaseDate: Date
    /// When the subscription expires or renews; `nil` for other products (a non-renewing subscription has none:
    /// the app decides how long it lasts).
    public let expirationDate: Date?
    /// Units bought (consumables).
    public let purchasedQuantity: Int
    /// Whether the customer upgraded to another subscription of the group, which replaces this one.
    public let isUpgraded: Bool
    /// Purchased, or shared through Family Sharing.
    public let ownershipType: OwnershipType
    /// When StoreKit signed the transaction.
    public let signedDate: Date
    /// When the App Store refunded or revoked the transaction, if it did.
    public let revocationDate: Date?
    public let revocationReason: RevocationReason?
    public let productType: Product.ProductType
    /// The UUID the app attached to the purchase (`Product.PurchaseOption.appAccountToken`).
    public let appAccountToken: UUID?
    /// The server environment that signed the transaction.
    public let environment: AppStore.Environment
    /// A purchase, or a renewal.
    public let reason: Reason
    /// The storefront of the purchase.
    public let storefront: Storefront
    /// The price charged, in the storefront's currency (0 for Family Sharing and free trials).
    public let price: Decimal?
    /// The ISO 4217 currency code of ``price``.
    public let currencyCode: String?
    /// The offer the purchase used, if any.
    public let offer: Offer?
    /// The transaction's payload as the App Store signed it, UTF-8 JSON (`JWSTransactionDecodedPayload`).
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/jsonrepresentation
    public var jsonRepresentation: Data { Data(signed.payload) }
    /// The payload and its signed form, each made when it is first asked for: apps go through many more
    /// snapshots (each `currentEntitlements` makes one per transaction) than they read the JSON or the JWS of.
    let signed: SignedPayload
    /// The store that handed the transaction out.
    let origin: ObjectIdentifier

    init(_ transaction: StoreTransaction, _ context: SnapshotContext, signer: (any PayloadSigner)?) {
        id = UInt64(transaction.transactionId) ?? 0
        originalID = UInt64(transaction.originalTransactionId) ?? 0
        webOrderLineItemID = transaction.webOrderLineItemId
        productID = transaction.productId
        subscriptionGroupID = transaction.subscriptionGroupIdentifier
        appBundleID = context.bundleId
        purchaseDate = Date(milliseconds: transaction.purchaseDate)
        originalPurchaseDate = Date(milliseconds: transaction.originalPurchaseDate)
        expirationDate = transaction.expiresDate.map(Date.init(milliseconds:))
        purchasedQuantity = transaction.quantity
        isUpgraded = transaction.isUpgraded
        ownershipType = transaction.inAppOwnershipType == "FAMILY_SHARED" ? .familyShared : .purchased
        signedDate = Date(milliseconds: context.now)
        revocationDate = transaction.revocationDate.map(Date.init(milliseconds:))
        revocationReason = transaction.revocationReason.map(RevocationReason.init(rawValue:))
        productType = Product.ProductType(transaction.productType)
        appAccountToken = transaction.appAccountToken.flatMap(UUID.init(uuidString:))
        environment = AppStore.Environment(context.environment)
        reason = transaction.transactionReason == "RENEWAL" ? .renewal : .purchase
        storefront = Storefront(countryCode: transaction.storefront, id: transaction.storefrontId)
        price = Product.decimal(milliunits: transaction.price)
        currencyCode = transaction.currency
        offer = transaction.offerType.map {
            Offer(type: OfferType(rawValue: $0), id: transaction.offerIdentifier,
                  paymentMode: transaction.offerDiscountType.map(Offer.PaymentMode.init(discountType:)),
                  period: transaction.offerPeriod.flatMap(ISO8601Duration.init).map(Product.SubscriptionPeriod.init))
        }
        let (bundleId, environment, now) = (context.bundleId, context.environment.rawValue, context.now)
        signed = SignedPayload(signer: signer) {
            transaction.payload(bundleId: bundleId, environment: environment, signedDate: now).compactJSON
        }
        origin = context.origin
    }

    /// Tells the App Store the app delivered the transaction's content: it leaves `Transaction.unfinished` and
    /// is not delivered again at the next launch.
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/finish()
    public func finish() async {
        guard let session = try? StoreKitSession.resolve(for: "Transaction.finish()"), await session.mayFinish(id) else { return }
        session.store.withStore { store in
            guard ObjectIdentifier(store) == origin, let transaction = store.transaction(String(id)),
                  transaction.account == session.account else { return }
            store.finish(transaction.transactionId)
        }
    }

    public static func == (lhs: Transaction, rhs: Transaction) -> Bool {
        lhs.id == rhs.id && lhs.signed == rhs.signed
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(signed)
    }
}

extension Transaction {
    /// Purchased by the customer, or shared with them through Family Sharing.
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/ownershiptype-swift.struct
    public struct OwnershipType: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let purchased = OwnershipType(rawValue: "PURCHASED")
        public static let familyShared = OwnershipType(rawValue: "FAMILY_SHARED")
    }

    /// Why the App Store refunded or revoked a transaction.
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/revocationreason-swift.struct
    public struct RevocationReason: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Refunded for an issue within the app.
        public static let developerIssue = RevocationReason(rawValue: 1)
        /// Refunded for another reason (or revoked by Family Sharing).
        public static let other = RevocationReason(rawValue: 0)
    }

    /// A purchase, or a subscription renewal.
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/reason-swift.struct
    public struct Reason: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let purchase = Reason(rawValue: "PURCHASE")
        public static let renewal = Reason(rawValue: "RENEWAL")
    }

    /// The kind of offer a purchase used.
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/offertype-swift.struct
    public struct OfferType: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        public static let introductory = OfferType(rawValue: 1)
        public static let promotional = OfferType(rawValue: 2)
        public static let code = OfferType(rawValue: 3)
        public static let winBack = OfferType(rawValue: 4)
    }

    /// The offer a purchase used.
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/offer-swift.struct
    public struct Offer: Hashable, Sendable {
        /// How the customer paid during the offer.
        public struct PaymentMode: RawRepresentable, Hashable, Sendable {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }

            public static let freeTrial = PaymentMode(rawValue: "FREE_TRIAL")
            public static let payAsYouGo = PaymentMode(rawValue: "PAY_AS_YOU_GO")
            public static let payUpFront = PaymentMode(rawValue: "PAY_UP_FRONT")

            init(discountType: String) { self.init(rawValue: discountType) }
        }

        public let type: OfferType
        /// The promotional, code or win-back offer's identifier; `nil` for introductory offers.
        public let id: String?
        public let paymentMode: PaymentMode?
        /// One period of the offer.
        public let period: Product.SubscriptionPeriod?
    }
}

/// A storefront of the App Store.
/// Apple: https://developer.apple.com/documentation/storekit/storefront
public struct Storefront: Hashable, Sendable {
    /// ISO 3166-1 alpha-3 country code, e.g. `USA`.
    public let countryCode: String
    /// The App Store's identifier of the storefront, e.g. `143441`.
    public let id: String
}

extension Date {
    /// A date from ms since 1970.
    init(milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
