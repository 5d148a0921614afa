import AppStoreModels
import MatrixModel

/// A transaction as the simulated App Store keeps it: Apple's transaction fields plus bookkeeping.
public struct StoreTransaction: Sendable, Hashable {
    public var transactionId: String
    public var originalTransactionId: String
    public var webOrderLineItemId: String?
    /// The account alias that holds the transaction.
    public var account: String
    public var productId: String
    public var productType: ProductType
    public var subscriptionGroupIdentifier: String?
    /// ms since 1970.
    public var purchaseDate: Int64
    /// ms since 1970.
    public var originalPurchaseDate: Int64
    /// ms since 1970; auto-renewable subscriptions only.
    public var expiresDate: Int64?
    public var quantity: Int
    /// `PURCHASED` or `FAMILY_SHARED`.
    public var inAppOwnershipType: String
    /// `PURCHASE` or `RENEWAL`.
    public var transactionReason: String
    public var revocationDate: Int64?
    public var revocationReason: Int?
    /// `REFUND_FULL` or `FAMILY_REVOKE`.
    public var revocationType: String?
    /// Milliunits of the part refunded or revoked: 100000 for a full refund or a Family Sharing revocation.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/revocationpercentage
    public var revocationPercentage: Int?
    public var isUpgraded: Bool
    /// 1 introductory, 2 promotional, 3 offer code, 4 win-back.
    public var offerType: Int?
    public var offerIdentifier: String?
    public var offerDiscountType: String?
    public var offerPeriod: String?
    public var appAccountToken: String?
    /// Milliunits.
    public var price: Int64
    public var currency: String
    public var storefront: String
    public var storefrontId: String
    /// The identifier of the account's download of the app, the same on all its transactions.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/apptransactionid
    public var appTransactionId: String?
    /// Whether the app called `finish()`.
    public var finished: Bool

    /// Whether the transaction was revoked (refunded or Family Sharing ended).
    public var isRevoked: Bool { revocationDate != nil }

    /// The fields expectations and reports use.
    public var observed: ObservedTransaction {
        ObservedTransaction(
            transactionId: transactionId, originalTransactionId: originalTransactionId, productId: productId,
            purchaseDate: purchaseDate, expiresDate: expiresDate, inAppOwnershipType: inAppOwnershipType,
            isUpgraded: isUpgraded, revocationDate: revocationDate, revocationReason: revocationReason,
            transactionReason: transactionReason, offerType: offerType, quantity: quantity, price: price, currency: currency)
    }

    /// The payload Apple signs for this transaction, with `signedDate` and `environment` filled in.
    public func payload(bundleId: String, environment: String, signedDate: Int64) -> JWSTransactionDecodedPayload {
        var p = JWSTransactionDecodedPayload()
        p.transactionId = transactionId
        p.originalTransactionId = originalTransactionId
        p.webOrderLineItemId = webOrderLineItemId
        p.bundleId = bundleId
        p.productId = productId
        p.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        p.purchaseDate = MillisecondsDate(purchaseDate)
        p.originalPurchaseDate = MillisecondsDate(originalPurchaseDate)
        p.expiresDate = expiresDate.map { MillisecondsDate($0) }
        p.quantity = quantity
        p.type = productType.transactionType
        p.appAccountToken = appAccountToken
        p.inAppOwnershipType = inAppOwnershipType
        p.signedDate = MillisecondsDate(signedDate)
        p.revocationReason = revocationReason
        p.revocationDate = revocationDate.map { MillisecondsDate($0) }
        p.revocationType = revocationType
        p.revocationPercentage = revocationPercentage
        p.isUpgraded = isUpgraded ? true : nil
        p.offerType = offerType
        p.offerIdentifier = offerIdentifier
        p.offerDiscountType = offerDiscountType
        p.offerPeriod = offerPeriod
        p.environment = environment
        p.transactionReason = transactionReason
        p.storefront = storefront
        p.storefrontId = storefrontId
        p.price = price
        p.currency = currency
        p.appTransactionId = appTransactionId
        return p
    }
}
