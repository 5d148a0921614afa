import Foundation
import AppStoreModels
import MatrixModel
import StoreSimulator

extension Product.SubscriptionInfo {
    /// What will happen at a subscription's next renewal, signed by the App Store.
    /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/renewalinfo
    public struct RenewalInfo: Hashable, Sendable {
        /// The identifier of the subscription's original purchase.
        public let originalTransactionID: UInt64
        /// The product currently in service.
        public let currentProductID: String
        /// Whether the subscription renews at the end of its period.
        public let willAutoRenew: Bool
        /// The product the next renewal is for (differs after a downgrade or a deferred crossgrade).
        public let autoRenewPreference: String?
        /// Why the subscription expired, or why it is failing to renew (`billingError` in billing retry and a
        /// billing grace period); `nil` otherwise.
        public let expirationReason: ExpirationReason?
        /// Whether the App Store is trying to renew after a billing failure.
        public let isInBillingRetry: Bool
        /// When the billing grace period ends, while the subscription is in one.
        public let gracePeriodExpirationDate: Date?
        /// Whether the customer agreed to a price increase that needs consent.
        public let priceIncreaseStatus: PriceIncreaseStatus
        /// When the latest period ends: the subscription renews or expires then (or expired then).
        public let renewalDate: Date?
        /// The price of the next renewal: an upcoming offer's price, or a requested price increase.
        public let renewalPrice: Decimal?
        /// The offer the next renewal uses, if any (the rest of a pay-as-you-go introductory offer, an offer
        /// redeemed for the active subscription or with a downgrade).
        public let offerType: Transaction.OfferType?
        /// The upcoming offer's identifier; `nil` for introductory offers.
        public let offerID: String?
        /// The UUID the app attached to the purchase.
        public let appAccountToken: UUID?
        /// Win-back offers a churned subscriber may redeem, best first.
        public let eligibleWinBackOfferIDs: [String]
        /// The ISO 4217 currency code of ``renewalPrice``.
        public let currencyCode: String?
        /// The start of the latest unbroken run of periods.
        public let recentSubscriptionStartDate: Date
        /// When StoreKit signed the renewal info.
        public let signedDate: Date
        /// The server environment that signed it.
        public let environment: AppStore.Environment
        /// The payload as the App Store signed it, UTF-8 JSON.
        public let jsonRepresentation: Data
        let signed: SignedPayload

        init(_ status: StoreSubscriptionStatus, _ context: SnapshotContext, signer: (any PayloadSigner)?) {
            let snapshot = status.renewalInfo
            let sub = snapshot.subscription
            let info = sub.observedRenewalInfo
            originalTransactionID = UInt64(sub.originalTransactionId) ?? 0
            currentProductID = sub.productId
            willAutoRenew = sub.autoRenewStatus
            autoRenewPreference = sub.autoRenewProductId
            expirationReason = sub.expirationIntent.map(ExpirationReason.init(rawValue:))
            isInBillingRetry = info.isInBillingRetryPeriod
            gracePeriodExpirationDate = info.gracePeriodExpiresDate.map(Date.init(milliseconds:))
            priceIncreaseStatus = switch sub.priceIncreaseStatus {
            case 0?: .pending
            case 1?: .agreed
            default: .noIncreasePending
            }
            renewalDate = info.renewalDate.map(Date.init(milliseconds:))
            renewalPrice = Product.decimal(milliunits: snapshot.terms.price)
            offerType = snapshot.terms.offerType.map(Transaction.OfferType.init(rawValue:))
            offerID = snapshot.terms.offerIdentifier
            appAccountToken = sub.appAccountToken.flatMap(UUID.init(uuidString:))
            eligibleWinBackOfferIDs = snapshot.eligibleWinBackOfferIds
            currencyCode = context.currency
            recentSubscriptionStartDate = Date(milliseconds: sub.recentSubscriptionStartDate)
            signedDate = Date(milliseconds: context.now)
            environment = AppStore.Environment(context.environment)
            let payload = snapshot.payload(environment: context.environment.rawValue, signedDate: context.now,
                                           currency: context.currency).compactJSON
            jsonRepresentation = Data(payload)
            signed = SignedPayload(payload, signer: signer)
        }

        /// Why a subscription expired.
        /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/renewalinfo/expirationreason-swift.struct
        public struct ExpirationReason: RawRepresentable, Hashable, Sendable {
            public let rawValue: Int
            public init(rawValue: Int) { self.rawValue = rawValue }

            public static let autoRenewDisabled = ExpirationReason(rawValue: 1)
            public static let billingError = ExpirationReason(rawValue: 2)
            public static let didNotConsentToPriceIncrease = ExpirationReason(rawValue: 3)
            public static let productUnavailable = ExpirationReason(rawValue: 4)
            public static let unknown = ExpirationReason(rawValue: 5)
        }

        /// Whether the customer agreed to a price increase.
        /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/renewalinfo/priceincreasestatus-swift.enum
        public enum PriceIncreaseStatus: Hashable, Sendable {
            case noIncreasePending
            case pending
            case agreed
        }
    }
}

extension Product.SubscriptionInfo.RenewalInfo: SignedValue {}
