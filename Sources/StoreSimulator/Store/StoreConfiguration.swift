import MatrixModel

/// What the simulated App Store needs to know besides the catalog.
public struct StoreConfiguration: Sendable, Hashable {
    public var bundleId: String
    public var appAppleId: Int64?
    /// The `environment` written into signed data: `Sandbox`, `Production`, `Xcode` or `LocalTesting`.
    public var signedEnvironment: SignedEnvironment
    /// ISO 3166-1 alpha-3 storefront, e.g. `USA`.
    public var storefront: String
    /// Purchases wait for a parent's approval.
    public var askToBuy: Bool
    /// The billing grace period the app chose (3, 16 or 28 days), 0 when off.
    public var gracePeriodDays: Int
    public var schedule: RenewalSchedule
    /// Where the virtual clock starts, ms since 1970.
    public var startTime: Int64
    /// Whether the app sets `SKIncludeConsumableInAppPurchaseHistory` (finished consumables stay in
    /// `Transaction.all`).
    public var includeConsumableInAppPurchaseHistory: Bool
    /// Which block of identifiers the case's store hands out (0 for the first): transaction and web order line
    /// item ids start 10,000,000 apart per block, and notification UUIDs carry the block in their first group, so
    /// that the stores of several cases talking to one backend (the `server` environment) never share an id. A
    /// choice: Apple's ids are unique across the App Store, and a backend keys its records by them.
    public var identifierSpace: Int64 = 0
    /// Bits a run draws at random, written into every notification UUID the store makes (0 for none: the UUIDs
    /// of a local run are the same in every run). A `server` run draws 64, so that two runs against one backend
    /// never share a notification UUID even when their identifier spaces meet.
    public var identifierSalt: UInt64 = 0

    /// 2026-01-01T12:00:00Z: a fixed start so that runs are reproducible.
    public static let defaultStartTime: Int64 = 1_767_268_800_000

    public init(bundleId: String, appAppleId: Int64? = nil, signedEnvironment: SignedEnvironment = .sandbox, storefront: String = "USA",
                askToBuy: Bool = false, gracePeriodDays: Int = 0, schedule: RenewalSchedule = .real,
                startTime: Int64 = StoreConfiguration.defaultStartTime, includeConsumableInAppPurchaseHistory: Bool = false) {
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.signedEnvironment = signedEnvironment
        self.storefront = storefront
        self.askToBuy = askToBuy
        self.gracePeriodDays = gracePeriodDays
        self.schedule = schedule
        self.startTime = startTime
        self.includeConsumableInAppPurchaseHistory = includeConsumableInAppPurchaseHistory
    }

    /// The configuration a matrix case runs with: case settings over matrix settings over the `.storekit`
    /// settings. A grace period switched on in the `.storekit` file without a duration is 16 days, App Store
    /// Connect's default.
    public init(matrix: Matrix, case matrixCase: MatrixCase, signedEnvironment: SignedEnvironment = .sandbox, schedule: RenewalSchedule = .real) {
        let settings = matrix.storeSettings(for: matrixCase)
        let fileSettings = matrix.catalog.settings
        self.init(
            bundleId: matrix.app.bundleId, appAppleId: matrix.app.appAppleId, signedEnvironment: signedEnvironment,
            storefront: settings.storefront ?? fileSettings.storefront ?? "USA",
            askToBuy: settings.askToBuy ?? fileSettings.askToBuyEnabled ?? false,
            gracePeriodDays: settings.gracePeriodDays ?? ((fileSettings.billingGracePeriodEnabled ?? false) ? 16 : 0),
            schedule: schedule)
    }

    /// The storefront's App Store identifier and currency. A storefront the table does not know keeps its code
    /// and has neither (the loader and ``AppStoreSimulator/prepare(_:)`` refuse it first): data is never signed as
    /// another storefront's.
    /// Apple: https://developer.apple.com/documentation/storekit/storefront
    public var storefrontDetails: AppStoreStorefront {
        AppStoreStorefront.named(storefront) ?? AppStoreStorefront(countryCode: storefront, id: "", currency: "")
    }

    /// Whether App Store servers take part, so that App Store Server Notifications are sent: not with StoreKit
    /// Testing in Xcode (its clock, or data it signs), whose purchases never reach an App Store server; a
    /// notification's `environment` can only be Sandbox or Production.
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/environment
    public var sendsServerNotifications: Bool {
        signedEnvironment.sendsServerNotifications && schedule.environment != .xcode
    }

    /// Currency and App Store storefront ID of the storefront.
    public var currencyAndStorefrontId: (currency: String, storefrontId: String) {
        (storefrontDetails.currency, storefrontDetails.id)
    }
}
