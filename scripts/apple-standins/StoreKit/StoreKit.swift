// A stand-in for Apple's StoreKit (StoreKit 2), for type-checking this package's Apple-only code on Linux:
// scripts/check-apple-branches.sh. Each declaration copies the signature and the availability Apple's documentation
// page gives it (the URL beside it); bodies are never run. Only what this package and its examples call is here.
// Where a member's own page was not looked at, it carries its type's availability, and the comment says so.
import Foundation

/// Apple: https://developer.apple.com/documentation/storekit/appstore
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public enum AppStore {
    /// Apple: https://developer.apple.com/documentation/storekit/appstore/sync()
    public static func sync() async throws { fatalError() }
}

/// Apple: https://developer.apple.com/documentation/storekit/storekiterror
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public enum StoreKitError: Error, Sendable {
    /// Apple: https://developer.apple.com/documentation/storekit/storekiterror/unknown
    case unknown
    /// Apple: https://developer.apple.com/documentation/storekit/storekiterror/usercancelled
    case userCancelled
    /// Apple: https://developer.apple.com/documentation/storekit/storekiterror/networkerror(_:)
    case networkError(URLError)
    /// Apple: https://developer.apple.com/documentation/storekit/storekiterror/systemerror(_:)
    case systemError(any Error)
    /// Apple: https://developer.apple.com/documentation/storekit/storekiterror/notavailableinstorefront
    case notAvailableInStorefront
    /// Apple: https://developer.apple.com/documentation/storekit/storekiterror/notentitled
    case notEntitled
    /// Apple: https://developer.apple.com/documentation/storekit/storekiterror/unsupported
    @available(iOS 18.4, macOS 15.4, tvOS 18.4, watchOS 11.4, visionOS 2.4, *)
    case unsupported
}

/// Apple: https://developer.apple.com/documentation/storekit/verificationresult
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public enum VerificationResult<SignedType> {
    /// Apple: https://developer.apple.com/documentation/storekit/verificationresult/unverified(_:_:)
    case unverified(SignedType, VerificationResult<SignedType>.VerificationError)
    /// Apple: https://developer.apple.com/documentation/storekit/verificationresult/verified(_:)
    case verified(SignedType)

    /// Apple: https://developer.apple.com/documentation/storekit/verificationresult/verificationerror
    public enum VerificationError: Error, Sendable {
        case revokedCertificate
        case invalidCertificateChain
        case invalidDeviceVerification
        case invalidEncoding
        case invalidSignature
        case missingRequiredProperties
    }

    /// Apple: https://developer.apple.com/documentation/storekit/verificationresult/unsafepayloadvalue
    public var unsafePayloadValue: SignedType { fatalError() }
    /// Apple: https://developer.apple.com/documentation/storekit/verificationresult/payloadvalue
    public var payloadValue: SignedType { get throws { fatalError() } }
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension VerificationResult: Sendable where SignedType: Sendable {}

/// Apple: https://developer.apple.com/documentation/storekit/transaction
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public struct Transaction: Identifiable, Sendable {
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/id (the type's availability)
    public let id: UInt64
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/productid (the type's availability)
    public let productID: String
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/producttype (the type's availability)
    public let productType: Product.ProductType
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/purchasedate (the type's availability)
    public let purchaseDate: Date
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/purchasedquantity (the type's availability)
    public let purchasedQuantity: Int
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/expirationdate
    public let expirationDate: Date?
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/revocationdate (the type's availability)
    public let revocationDate: Date?
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/jsonrepresentation
    public var jsonRepresentation: Data { fatalError() }

    /// Apple: https://developer.apple.com/documentation/storekit/transaction/finish() (the type's availability)
    public func finish() async { fatalError() }

    /// Apple: https://developer.apple.com/documentation/storekit/transaction/transactions
    public struct Transactions: AsyncSequence, Sendable {
        public typealias Element = VerificationResult<Transaction>
        public struct AsyncIterator: AsyncIteratorProtocol {
            public mutating func next() async -> VerificationResult<Transaction>? { fatalError() }
        }
        public func makeAsyncIterator() -> AsyncIterator { fatalError() }
    }

    /// Apple: https://developer.apple.com/documentation/storekit/transaction/currententitlements
    public static var currentEntitlements: Transaction.Transactions { fatalError() }
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/unfinished
    public static var unfinished: Transaction.Transactions { fatalError() }
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/all (the type's availability)
    public static var all: Transaction.Transactions { fatalError() }
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/updates (the type's availability)
    public static var updates: Transaction.Transactions { fatalError() }
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/latest(for:) (the type's availability)
    public static func latest(for productID: String) async -> VerificationResult<Transaction>? { fatalError() }
}

/// Apple: https://developer.apple.com/documentation/storekit/product
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public struct Product: Identifiable, Sendable {
    public typealias ID = String
    /// Apple: https://developer.apple.com/documentation/storekit/product/id (the type's availability)
    public let id: String
    /// Apple: https://developer.apple.com/documentation/storekit/product/type (the type's availability)
    public let type: Product.ProductType
    /// Apple: https://developer.apple.com/documentation/storekit/product/subscription (the type's availability)
    public let subscription: Product.SubscriptionInfo?

    /// Apple: https://developer.apple.com/documentation/storekit/product/products(for:) (the type's availability)
    public static func products<Identifiers: Collection>(for identifiers: Identifiers) async throws -> [Product]
        where Identifiers.Element == String { fatalError() }

    /// Apple: https://developer.apple.com/documentation/storekit/product/purchase(options:)
    @MainActor public func purchase(options: Set<Product.PurchaseOption> = []) async throws -> Product.PurchaseResult { fatalError() }

    /// Apple: https://developer.apple.com/documentation/storekit/product/currententitlement (the type's availability)
    public var currentEntitlement: VerificationResult<Transaction>? { get async { fatalError() } }

    /// Apple: https://developer.apple.com/documentation/storekit/product/producttype
    public struct ProductType: RawRepresentable, Equatable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let consumable = ProductType(rawValue: "Consumable")
        public static let nonConsumable = ProductType(rawValue: "Non-Consumable")
        public static let nonRenewable = ProductType(rawValue: "Non-Renewable")
        public static let autoRenewable = ProductType(rawValue: "Auto-Renewable")
    }

    /// Apple: https://developer.apple.com/documentation/storekit/product/purchaseresult
    public enum PurchaseResult: Sendable {
        case success(VerificationResult<Transaction>)
        case userCancelled
        case pending
    }

    /// Apple: https://developer.apple.com/documentation/storekit/product/purchaseerror
    public enum PurchaseError: Error, Equatable, Hashable, Sendable {
        case invalidQuantity
        case productUnavailable
        case purchaseNotAllowed
        case ineligibleForOffer
        case invalidOfferIdentifier
        case invalidOfferPrice
        case invalidOfferSignature
        case missingOfferParameters
    }

    /// Apple: https://developer.apple.com/documentation/storekit/product/purchaseoption
    public struct PurchaseOption: Equatable, Hashable, Sendable {
        /// Apple: https://developer.apple.com/documentation/storekit/product/purchaseoption/quantity(_:)
        public static func quantity(_ quantity: Int) -> Product.PurchaseOption { fatalError() }
        /// Apple: https://developer.apple.com/documentation/storekit/product/purchaseoption/appaccounttoken(_:)
        public static func appAccountToken(_ token: UUID) -> Product.PurchaseOption { fatalError() }
        /// Apple: https://developer.apple.com/documentation/storekit/product/purchaseoption/winbackoffer(_:)
        @available(iOS 18.0, macOS 15.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        public static func winBackOffer(_ offer: Product.SubscriptionOffer) -> Product.PurchaseOption { fatalError() }
    }

    /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptionoffer
    public struct SubscriptionOffer: Sendable {
        /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptionoffer/id (the type's availability)
        public let id: String?
    }

    /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo
    public struct SubscriptionInfo: Sendable {
        /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/promotionaloffers
        public let promotionalOffers: [Product.SubscriptionOffer]
        /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/winbackoffers
        @available(iOS 18.0, macOS 15.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        public var winBackOffers: [Product.SubscriptionOffer] { fatalError() }
        /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/subscriptiongroupid
        public let subscriptionGroupID: String

        /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/iseligibleforintrooffer(for:)
        public static func isEligibleForIntroOffer(for groupID: String) async -> Bool { fatalError() }
        /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/status(for:) (the type's availability)
        public static func status(for groupID: String) async throws -> [Product.SubscriptionInfo.Status] { fatalError() }

        /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/status-swift.struct
        public struct Status: Sendable {
            /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/status-swift.struct/state
            public let state: Product.SubscriptionInfo.RenewalState
            /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/status-swift.struct/renewalinfo
            public let renewalInfo: VerificationResult<Product.SubscriptionInfo.RenewalInfo>
        }

        /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/renewalstate
        public struct RenewalState: RawRepresentable, Equatable, Hashable, Sendable {
            public let rawValue: Int
            public init(rawValue: Int) { self.rawValue = rawValue }
            /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/renewalstate/subscribed
            public static let subscribed = RenewalState(rawValue: 1)
            /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/renewalstate/expired
            public static let expired = RenewalState(rawValue: 2)
            /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/renewalstate/inbillingretryperiod
            public static let inBillingRetryPeriod = RenewalState(rawValue: 3)
            /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/renewalstate/ingraceperiod
            public static let inGracePeriod = RenewalState(rawValue: 4)
            /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/renewalstate/revoked
            public static let revoked = RenewalState(rawValue: 5)
        }

        /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/renewalinfo
        public struct RenewalInfo: Sendable {
            /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/renewalinfo/jsonrepresentation (the type's availability)
            public var jsonRepresentation: Data { fatalError() }
        }
    }
}
