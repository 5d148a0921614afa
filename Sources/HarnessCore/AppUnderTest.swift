/// The app's side of a case: one installed copy of an app on one device, which the runner launches, quits, asks
/// to buy and restore, and asks what it grants.
///
/// Implement it in a few lines around your Store class: the app reaches the store only through StoreKit's API
/// (`Product`, `Transaction`, `AppStore`: SimulatedStoreKit's on the embedded App Store, which the runner binds to
/// the case's device while it calls these methods, or Apple's under StoreKit Testing in Xcode). The runner plays the App Store (renewals, refunds, Ask to Buy answers, time) and waits
/// until the app's `Transaction.updates` listeners have handled what it delivered before it observes the app.
///
/// An object is one installation: a relaunch keeps it (and what the app stored), a reinstall or another device is
/// a new object. A new object is made with the factory given to the runner.
public protocol AppUnderTest: AnyObject, Sendable {
    /// Starts the app as it starts on a device: its `Transaction.updates` listener, and its entitlement check.
    /// Start the listener before returning, so that the updates waiting at launch reach it: when the listener is a
    /// task the launch spawns, end with `await TransactionUpdates.waitForListener()`.
    ///
    /// - Throws: when the app cannot start; the step is recorded as `error` with the error's description.
    func launch() async throws

    /// Quits the app: its tasks stop; what it stored stays. The runner ends its `Transaction.updates` loops.
    func quit() async

    /// Buys a product through the app's own purchase path (its store view, its `purchase(options:)` call).
    ///
    /// - Returns: what the app shows, or `nil` to let the runner record what `Product.purchase(options:)`
    ///   answered.
    /// - Throws: when the app could not attempt the purchase; a purchase StoreKit refused is what it answered.
    func purchase(_ request: AppPurchaseRequest) async throws -> AppPurchaseReport?

    /// The app's Restore Purchases: `AppStore.sync()` and its entitlement check.
    ///
    /// - Returns: what the app tells the customer, or `nil` to let the runner say `restored` when the
    ///   app grants anything afterwards and `nothingToRestore` otherwise.
    func restore() async throws -> AppRestoreReport?

    /// The product IDs the app grants access for now, as its screens show them (it may re-check first).
    func entitledProductIDs() async -> Set<String>

    /// The consumable balances the app keeps, by balance name (the matrix's `consumables`). The default reports
    /// none.
    func balances() async -> [String: Int]

    /// The prices the app shows, by product ID, as its store view writes them (`"$4.99"`), or `nil` when the app
    /// does not report them (a `displayPrice` expectation is then not judged, and the evidence says so).
    func displayedPrices() async -> [String: String]?
}

extension AppUnderTest {
    /// The app does not report the prices it shows.
    public func displayedPrices() async -> [String: String]? { nil }
}

/// What a matrix's `purchase` step asks the app to buy.
public struct AppPurchaseRequest: Sendable, Hashable {
    public var productID: String
    /// Units of a consumable.
    public var quantity: Int
    /// A promotional or win-back offer's identifier, as the step names it. (An eligible customer gets the
    /// introductory offer without asking: StoreKit has no purchase option for it.)
    public var offer: String?
    /// The UUID the app attaches to the purchase (`Product.PurchaseOption.appAccountToken`).
    public var appAccountToken: String?

    public init(productID: String, quantity: Int = 1, offer: String? = nil, appAccountToken: String? = nil) {
        self.productID = productID
        self.quantity = quantity
        self.offer = offer
        self.appAccountToken = appAccountToken
    }
}

/// What the app shows after a purchase attempt.
public struct AppPurchaseReport: Sendable, Hashable {
    /// `success`, `userCancelled`, `pending` or `failed`, as the app reports it.
    public var result: String
    /// The message the app shows, if any.
    public var message: String?
    /// The transaction the purchase returned, on success.
    public var transactionId: String?

    public init(result: String, message: String? = nil, transactionId: String? = nil) {
        self.result = result
        self.message = message
        self.transactionId = transactionId
    }
}

/// What the app shows after Restore Purchases.
public struct AppRestoreReport: Sendable, Hashable {
    /// `restored` or `nothingToRestore`.
    public var result: String
    /// The message the app shows.
    public var message: String

    public init(result: String, message: String) {
        self.result = result
        self.message = message
    }
}

/// The app harness could not do what a step asked of the app.
public struct AppHarnessError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
