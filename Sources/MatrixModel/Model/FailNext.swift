/// A failure a step sets up for the next StoreKit call of a kind, as StoreKit Testing's
/// `SKTestSession.setSimulatedError(_:forAPI:)` does for its failable APIs. The step's own calls meet it: a
/// `purchase` step with `{"call": "purchase", "error": "networkError"}` sees `purchase(options:)` throw
/// `StoreKitError.networkError`.
///
/// In the matrix: `"failNext": {"call": "products" | "purchase" | "sync" | "verification", "error": NAME}`.
/// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/setsimulatederror(_:forapi:),
/// https://developer.apple.com/documentation/storekittest/sktestfailures
public struct FailNext: Sendable, Hashable, Codable {
    /// The kind of call that fails.
    public var call: StoreKitCall
    /// The error it fails with, by its case name in StoreKit (``StoreKitCall/errorNames``).
    public var error: String

    public init(call: StoreKitCall, error: String) {
        self.call = call
        self.error = error
    }
}

/// The StoreKit calls a failure can be set up for, as StoreKit Testing's `SKTestFailures` groups them.
/// Apple: https://developer.apple.com/documentation/storekittest/sktestfailures
public enum StoreKitCall: String, Sendable, Hashable, Codable, CaseIterable {
    /// `Product.products(for:)` (`SKTestFailures.LoadProducts`).
    case products
    /// `Product.purchase(options:)` (`SKTestFailures.Purchase`).
    case purchase
    /// `AppStore.sync()` (`SKTestFailures.AppStoreSync`).
    case sync
    /// The verification of the transactions StoreKit hands out next: a purchase result, `Transaction.updates`,
    /// `currentEntitlements`, `all`, `latest(for:)` (`SKTestFailures.Verification`).
    case verification

    /// The call as app code writes it, e.g. `Product.products(for:)`.
    public var callName: String {
        switch self {
        case .products: "Product.products(for:)"
        case .purchase: "Product.purchase(options:)"
        case .sync: "AppStore.sync()"
        case .verification: "verification"
        }
    }

    /// The errors a matrix may name for this call: `StoreKitError` cases for products and sync, those and
    /// `Product.PurchaseError` cases for a purchase, `VerificationResult.VerificationError` cases for
    /// verification.
    /// Apple: https://developer.apple.com/documentation/storekit/storekiterror,
    /// https://developer.apple.com/documentation/storekit/product/purchaseerror,
    /// https://developer.apple.com/documentation/storekit/verificationresult/verificationerror
    public var errorNames: [String] {
        switch self {
        case .products, .sync: Self.storeKitErrors
        case .purchase: Self.storeKitErrors + Self.purchaseErrors
        case .verification: Self.verificationErrors
        }
    }

    /// `StoreKitError` cases.
    public static let storeKitErrors = [
        "unknown", "userCancelled", "networkError", "systemError", "notAvailableInStorefront", "notEntitled", "unsupported",
    ]
    /// `Product.PurchaseError` cases.
    public static let purchaseErrors = [
        "invalidQuantity", "productUnavailable", "purchaseNotAllowed", "ineligibleForOffer", "invalidOfferIdentifier",
        "invalidOfferPrice", "invalidOfferSignature", "missingOfferParameters",
    ]
    /// `VerificationResult.VerificationError` cases.
    public static let verificationErrors = [
        "revokedCertificate", "invalidCertificateChain", "invalidDeviceVerification", "invalidEncoding", "invalidSignature",
        "missingRequiredProperties",
    ]
}
