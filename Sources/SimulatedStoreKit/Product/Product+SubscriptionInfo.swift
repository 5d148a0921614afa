import Foundation
import MatrixModel
import StoreSimulator

extension Product {
    /// An auto-renewable subscription's group, period and offers, and the customer's status in its group.
    /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo
    public struct SubscriptionInfo: Hashable, Sendable {
        /// The subscription group's identifier.
        public let subscriptionGroupID: String
        /// The length of one period.
        public let subscriptionPeriod: SubscriptionPeriod
        /// The introductory offer, if the product has one.
        public let introductoryOffer: SubscriptionOffer?
        /// The promotional offers.
        public let promotionalOffers: [SubscriptionOffer]
        /// The win-back offers.
        public let winBackOffers: [SubscriptionOffer]
        /// The level of the subscription in its group, 1 the highest (`groupNumber` in the `.storekit` file).
        public let groupLevel: Int
        /// The group's name.
        public let groupDisplayName: String

        init?(_ product: CatalogProduct, catalog: StoreKitConfiguration, currency: String) {
            guard product.type == .autoRenewable, let group = product.subscriptionGroupID,
                  let period = product.recurringSubscriptionPeriod else { return nil }
            subscriptionGroupID = group
            subscriptionPeriod = SubscriptionPeriod(period)
            introductoryOffer = product.introductoryOffer.map { SubscriptionOffer($0, type: .introductory, currency: currency) }
            promotionalOffers = product.promotionalOffers.map { SubscriptionOffer($0, type: .promotional, currency: currency) }
            winBackOffers = product.winBackOffers.map { SubscriptionOffer($0, type: .winBack, currency: currency) }
            groupLevel = product.groupNumber ?? 1
            groupDisplayName = catalog.group(group)?.name ?? group
        }

        /// Whether the customer may use the group's introductory offer: they never received one in the group and
        /// never subscribed in it.
        /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/iseligibleforintrooffer
        public var isEligibleForIntroOffer: Bool {
            get async {
                await Self.isEligibleForIntroOffer(for: subscriptionGroupID)
            }
        }

        /// The customer's status in the group: one entry for their own subscription and, under Family Sharing,
        /// one for each subscription shared with them; empty when they never subscribed.
        /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/status-swift.property
        public var status: [Status] {
            get async throws {
                try await Self.status(for: subscriptionGroupID)
            }
        }

        /// Whether the customer may use the introductory offer of `groupID`.
        /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/iseligibleforintrooffer(for:)
        public static func isEligibleForIntroOffer(for groupID: String) async -> Bool {
            guard let session = try? StoreKitSession.resolve(for: "Product.SubscriptionInfo.isEligibleForIntroOffer(for:)") else { return false }
            return session.store.withStore { store in
                guard let first = store.catalog.group(groupID)?.productIDs.first else { return false }
                return store.isEligibleForIntroOffer(account: session.account, productID: first)
            }
        }

        /// The customer's status in `groupID`.
        ///
        /// - Throws: `StoreKitError.unknown` when no case is bound.
        /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/status(for:)
        public static func status(for groupID: String) async throws -> [Status] {
            let session = try StoreKitSession.resolve(for: "Product.SubscriptionInfo.status(for:)")
            let (statuses, context) = session.store.withStore { store in
                (store.subscriptionStatuses(account: session.account).filter { $0.groupID == groupID }, SnapshotContext(store))
            }
            return statuses.map { Status($0, context, signer: session.store.signer) }
        }
    }

    /// The length of a subscription or offer period.
    /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptionperiod
    public struct SubscriptionPeriod: Hashable, Sendable {
        /// A unit of time.
        public enum Unit: Hashable, Sendable {
            case day, week, month, year
        }

        /// The unit.
        public let unit: Unit
        /// How many units.
        public let value: Int

        init(_ duration: ISO8601Duration) {
            switch (duration.years, duration.months, duration.weeks, duration.days) {
            case (let years, 0, 0, 0) where years > 0: (unit, value) = (.year, years)
            case (0, let months, 0, 0) where months > 0: (unit, value) = (.month, months)
            case (0, 0, let weeks, 0) where weeks > 0: (unit, value) = (.week, weeks)
            default: (unit, value) = (.day, duration.years * 365 + duration.months * 30 + duration.weeks * 7 + duration.days)
            }
        }
    }

    /// An offer on a subscription: introductory, promotional or win-back.
    /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptionoffer
    public struct SubscriptionOffer: Hashable, Sendable {
        /// The kind of an offer.
        public struct OfferType: RawRepresentable, Hashable, Sendable {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }

            public static let introductory = OfferType(rawValue: "introductory")
            public static let promotional = OfferType(rawValue: "promotional")
            public static let winBack = OfferType(rawValue: "winBack")
        }

        /// How the customer pays during the offer.
        public struct PaymentMode: RawRepresentable, Hashable, Sendable {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }

            public static let freeTrial = PaymentMode(rawValue: "freeTrial")
            public static let payAsYouGo = PaymentMode(rawValue: "payAsYouGo")
            public static let payUpFront = PaymentMode(rawValue: "payUpFront")
        }

        /// The offer identifier; `nil` for introductory offers.
        public let id: String?
        public let type: OfferType
        /// The price per period (free trials: 0).
        public let price: Decimal
        public let displayPrice: String
        /// One period of the offer.
        public let period: SubscriptionPeriod
        /// How many periods it lasts.
        public let periodCount: Int
        public let paymentMode: PaymentMode

        init(_ offer: MatrixModel.SubscriptionOffer, type: OfferType, currency: String) {
            id = offer.offerID
            self.type = type
            let text = offer.paymentMode == .freeTrial ? "0" : (offer.displayPrice ?? "0")
            price = Product.decimal(milliunits: CatalogProduct.milliunits(text))
            displayPrice = Product.displayPrice(offer.paymentMode == .freeTrial ? "0.00" : text, currency: currency)
            period = SubscriptionPeriod(offer.subscriptionPeriod)
            periodCount = offer.paymentMode == .payUpFront ? 1 : max(1, offer.numberOfPeriods)
            paymentMode = switch offer.paymentMode {
            case .freeTrial: .freeTrial
            case .payAsYouGo: .payAsYouGo
            case .payUpFront: .payUpFront
            }
        }
    }
}

extension Product.SubscriptionInfo {
    /// The state of a subscription.
    /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/renewalstate
    public struct RenewalState: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        public static let subscribed = RenewalState(rawValue: 1)
        public static let expired = RenewalState(rawValue: 2)
        public static let inBillingRetryPeriod = RenewalState(rawValue: 3)
        public static let inGracePeriod = RenewalState(rawValue: 4)
        public static let revoked = RenewalState(rawValue: 5)

        init(_ state: StoreSimulator.RenewalState) {
            self.init(rawValue: state.statusCode)
        }

        public var description: String {
            switch rawValue {
            case 1: "subscribed"
            case 2: "expired"
            case 3: "inBillingRetryPeriod"
            case 4: "inGracePeriod"
            case 5: "revoked"
            default: "RenewalState(\(rawValue))"
            }
        }
    }

    /// A subscription's state, with its latest transaction and its renewal info.
    /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/status-swift.struct
    public struct Status: Hashable, Sendable {
        public let state: RenewalState
        public let transaction: VerificationResult<Transaction>
        public let renewalInfo: VerificationResult<RenewalInfo>

        init(_ status: StoreSubscriptionStatus, _ context: SnapshotContext, signer: (any PayloadSigner)?) {
            state = RenewalState(status.state)
            transaction = .verified(Transaction(status.transaction, context, signer: signer))
            renewalInfo = .verified(RenewalInfo(status, context, signer: signer))
        }
    }
}
