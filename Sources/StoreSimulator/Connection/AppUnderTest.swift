import MatrixModel

/// The app's side of a case: one installed copy of an app on one device, which the session launches, quits and
/// asks to buy, restore and show what it grants.
///
/// The session performs the App Store's side of each step (renewals, refunds, Ask to Buy answers, time) on the
/// store; the app reaches the store only through the ``StoreConnection`` it was installed with. An app's storage
/// lives as long as the object: a relaunch keeps it, a reinstall or another device is a new object.
public protocol AppUnderTest: AnyObject {
    /// Whether the app is running.
    var isRunning: Bool { get }

    /// Starts the app: its `Transaction.updates` listener and its entitlement check, as the app does at launch.
    ///
    /// - Throws: when the app cannot start; the step is recorded as `error` with the error's description.
    func launch() async throws

    /// Quits the app (its process ends; its storage stays).
    func quit() async

    /// Buys a product through the app's own purchase path.
    ///
    /// - Throws: when the app could not attempt the purchase (it is not running, say); a purchase the store
    ///   refused is a ``AppPurchaseReport`` with result `failed`.
    func purchase(_ request: AppPurchaseRequest) async throws -> AppPurchaseReport

    /// The app's Restore Purchases: `AppStore.sync()` and its entitlement check.
    ///
    /// - Throws: when the app could not attempt the restore.
    func restore() async throws -> AppRestoreReport

    /// The product IDs the app grants access for now, as its screens show them (it may re-check first).
    func entitledProductIDs() async -> Set<String>

    /// The consumable balances the app keeps, by balance name.
    func balances() async -> [String: Int]
}

/// What a matrix's `purchase` step asks the app to buy.
public struct AppPurchaseRequest: Sendable, Hashable {
    public var productID: String
    /// Units of a consumable.
    public var quantity: Int
    /// `introductory`, or a promotional or win-back offer's identifier.
    public var offer: String?
    /// The UUID the app attaches to the purchase (`Product.PurchaseOption.appAccountToken`).
    public var appAccountToken: String?
    /// Where the app's process is killed while it handles the transaction, for apps that model it.
    public var terminate: TerminationPoint?

    public init(productID: String, quantity: Int = 1, offer: String? = nil, appAccountToken: String? = nil,
                terminate: TerminationPoint? = nil) {
        self.productID = productID
        self.quantity = quantity
        self.offer = offer
        self.appAccountToken = appAccountToken
        self.terminate = terminate
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
