// A stand-in for Apple's StoreKitTest, for type-checking this package's Apple-only code on Linux:
// scripts/check-apple-branches.sh. Each declaration copies the signature and the availability Apple's documentation
// page gives it (the URL beside it); bodies are never run. Only what this package calls is here. Where a member's
// own page was not looked at, it carries its type's availability, and the comment says so.
import Foundation
import StoreKit

/// Apple: https://developer.apple.com/documentation/storekittest/sktestsession
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
open class SKTestSession {
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/init(configurationfilenamed:)
    public convenience init(configurationFileNamed filename: String) throws { fatalError() }

    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/resettodefaultstate()
    open func resetToDefaultState() { fatalError() }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/cleartransactions()
    open func clearTransactions() { fatalError() }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/alltransactions()
    open func allTransactions() -> [SKTestTransaction] { fatalError() }

    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/disabledialogs
    open var disableDialogs: Bool { get { fatalError() } set { fatalError() } }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/asktobuyenabled
    open var askToBuyEnabled: Bool { get { fatalError() } set { fatalError() } }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/interruptedpurchasesenabled
    open var interruptedPurchasesEnabled: Bool { get { fatalError() } set { fatalError() } }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/storefront
    open var storefront: String { get { fatalError() } set { fatalError() } }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/billinggraceperiodisenabled
    @available(iOS 15.4, macOS 12.3, tvOS 15.4, watchOS 8.5, visionOS 1.0, *)
    open var billingGracePeriodIsEnabled: Bool { get { fatalError() } set { fatalError() } }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/shouldenterbillingretryonrenewal
    @available(iOS 15.4, macOS 12.3, tvOS 15.4, watchOS 8.5, visionOS 1.0, *)
    open var shouldEnterBillingRetryOnRenewal: Bool { get { fatalError() } set { fatalError() } }

    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/buyproduct(productidentifier:)
    @available(iOS, introduced: 14.0, deprecated: 17.0)
    @available(macOS, introduced: 11.0, deprecated: 14.0)
    @available(tvOS, introduced: 14.0, deprecated: 17.0)
    @available(watchOS, introduced: 7.0, deprecated: 10.0)
    open func buyProduct(productIdentifier: String) throws { fatalError() }

    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/approveasktobuytransaction(identifier:)
    open func approveAskToBuyTransaction(identifier: Int) throws { fatalError() }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/declineasktobuytransaction(identifier:) (the type's availability)
    open func declineAskToBuyTransaction(identifier: Int) throws { fatalError() }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/resolveissuefortransaction(identifier:)
    open func resolveIssueForTransaction(identifier: Int) throws { fatalError() }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/forcerenewalofsubscription(productidentifier:)
    open func forceRenewalOfSubscription(productIdentifier: String) throws { fatalError() }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/enableautorenewfortransaction(identifier:)
    open func enableAutoRenewForTransaction(identifier: Int) throws { fatalError() }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/disableautorenewfortransaction(identifier:)
    open func disableAutoRenewForTransaction(identifier: Int) throws { fatalError() }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/expiresubscription(productidentifier:) (the type's availability)
    open func expireSubscription(productIdentifier: String) throws { fatalError() }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/refundtransaction(identifier:)
    open func refundTransaction(identifier: Int) throws { fatalError() }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/requestpriceincreaseconsentfortransaction(identifier:)
    @available(iOS 15.4, macOS 12.3, tvOS 15.4, watchOS 8.5, visionOS 1.0, *)
    open func requestPriceIncreaseConsentForTransaction(identifier: Int) throws { fatalError() }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/consenttopriceincreasefortransaction(identifier:)
    @available(iOS 15.4, macOS 12.3, tvOS 15.4, watchOS 8.5, visionOS 1.0, *)
    open func consentToPriceIncreaseForTransaction(identifier: Int) throws { fatalError() }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/declinepriceincreasefortransaction(identifier:)
    @available(iOS 15.4, macOS 12.3, tvOS 15.4, watchOS 8.5, visionOS 1.0, *)
    open func declinePriceIncreaseForTransaction(identifier: Int) throws { fatalError() }

    private init() { fatalError() }
}

@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
extension SKTestSession {
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/buyproduct(identifier:options:)
    @discardableResult
    public func buyProduct(identifier: Product.ID, options: Set<Product.PurchaseOption> = []) async throws -> Transaction { fatalError() }

    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/setsimulatederror(_:forapi:)
    public func setSimulatedError<API>(_ error: API.Failure?, forAPI api: API) async throws where API: FailableStoreKitAPI { fatalError() }
}

/// Apple: https://developer.apple.com/documentation/storekittest/sktesttransaction
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
open class SKTestTransaction {
    /// Apple: https://developer.apple.com/documentation/storekittest/sktesttransaction/identifier
    open var identifier: Int { fatalError() }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktesttransaction/productidentifier
    open var productIdentifier: String { fatalError() }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktesttransaction/purchasedate
    open var purchaseDate: Date { fatalError() }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktesttransaction/expirationdate
    open var expirationDate: Date? { fatalError() }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktesttransaction/pendingasktobuyconfirmation
    open var pendingAskToBuyConfirmation: Bool { fatalError() }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktesttransaction/haspurchaseissue
    open var hasPurchaseIssue: Bool { fatalError() }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktesttransaction/autorenewingenabled
    open var autoRenewingEnabled: Bool { fatalError() }

    private init() { fatalError() }
}

/// Apple: https://developer.apple.com/documentation/storekittest/sktestfailure
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
public protocol SKTestFailure: Equatable, Sendable {}

/// Apple: https://developer.apple.com/documentation/storekittest/failablestorekitapi
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
public protocol FailableStoreKitAPI<Failure>: Sendable {
    /// Apple: https://developer.apple.com/documentation/storekittest/failablestorekitapi/failure
    associatedtype Failure: SKTestFailure
}

/// Apple: https://developer.apple.com/documentation/storekittest/sktestfailures
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
public enum SKTestFailures {
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestfailures/loadproducts
    public enum LoadProducts: SKTestFailure {
        case generic(StoreKitError)
        public static func == (lhs: Self, rhs: Self) -> Bool { fatalError() }
    }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestfailures/appstoresync (the type's availability)
    public enum AppStoreSync: SKTestFailure {
        case generic(StoreKitError)
        public static func == (lhs: Self, rhs: Self) -> Bool { fatalError() }
    }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestfailures/purchase (the type's availability)
    public enum Purchase: SKTestFailure {
        /// Apple: https://developer.apple.com/documentation/storekittest/sktestfailures/purchase/generic(_:) (the type's availability)
        case generic(StoreKitError)
        /// Apple: https://developer.apple.com/documentation/storekittest/sktestfailures/purchase/purchase(_:)
        case purchase(Product.PurchaseError)
        public static func == (lhs: Self, rhs: Self) -> Bool { fatalError() }
    }
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestfailures/verification (the type's availability)
    public enum Verification: SKTestFailure {
        /// Apple: https://developer.apple.com/documentation/storekittest/sktestfailures/verification/verification(_:)
        case verification(VerificationResult<Any>.VerificationError)
        public static func == (lhs: Self, rhs: Self) -> Bool { fatalError() }
    }
}

/// Apple: https://developer.apple.com/documentation/storekittest/storekitloadproductsapi (the protocol's availability)
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
public struct StoreKitLoadProductsAPI: FailableStoreKitAPI {
    public typealias Failure = SKTestFailures.LoadProducts
    public init() {}
}

/// Apple: https://developer.apple.com/documentation/storekittest/storekitappstoresyncapi
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
public struct StoreKitAppStoreSyncAPI: FailableStoreKitAPI {
    public typealias Failure = SKTestFailures.AppStoreSync
    public init() {}
}

/// Apple: https://developer.apple.com/documentation/storekittest/storekitpurchaseapi (the protocol's availability)
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
public struct StoreKitPurchaseAPI: FailableStoreKitAPI {
    public typealias Failure = SKTestFailures.Purchase
    public init() {}
}

/// Apple: https://developer.apple.com/documentation/storekittest/storekitverificationapi (the protocol's availability)
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
public struct StoreKitVerificationAPI: FailableStoreKitAPI {
    public typealias Failure = SKTestFailures.Verification
    public init() {}
}

@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
extension FailableStoreKitAPI where Self == StoreKitLoadProductsAPI {
    /// Apple: https://developer.apple.com/documentation/storekittest/failablestorekitapi/loadproducts
    public static var loadProducts: StoreKitLoadProductsAPI { fatalError() }
}

@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
extension FailableStoreKitAPI where Self == StoreKitAppStoreSyncAPI {
    /// Apple: https://developer.apple.com/documentation/storekittest/failablestorekitapi/appstoresync
    public static var appStoreSync: StoreKitAppStoreSyncAPI { fatalError() }
}

@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
extension FailableStoreKitAPI where Self == StoreKitPurchaseAPI {
    /// Apple: https://developer.apple.com/documentation/storekittest/failablestorekitapi/purchase (the protocol's availability)
    public static var purchase: StoreKitPurchaseAPI { fatalError() }
}

@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
extension FailableStoreKitAPI where Self == StoreKitVerificationAPI {
    /// Apple: https://developer.apple.com/documentation/storekittest/failablestorekitapi/verification
    public static var verification: StoreKitVerificationAPI { fatalError() }
}
