/// An acceptance matrix: the products, how they map to access, the test accounts, and the cases to run.
///
/// Loaded from JSON by ``MatrixLoader``; the format is documented in `docs/matrix-format.md` and
/// `schema/matrix.schema.json`.
public struct Matrix: Sendable, Hashable {
    /// The only `schemaVersion` this version reads.
    public static let supportedSchemaVersion = 1

    public var schemaVersion: Int
    /// A short name for reports, e.g. `release`.
    public var name: String
    /// The app under test.
    public var app: AppInfo
    /// The path of the `.storekit` catalog as written in the matrix (relative to the matrix file), if any.
    public var catalogPath: String?
    /// The products: read from the `.storekit` file, or written inline.
    public var catalog: StoreKitConfiguration
    /// Tiers in matrix order: each grants access when the app holds any of its products.
    public var tiers: [Tier]
    /// Consumables the app credits to a balance, by product ID.
    public var consumables: [String: ConsumableSpec]
    /// Non-renewing subscriptions and the duration the app grants for each, by product ID.
    public var nonRenewing: [String: NonRenewingSpec]
    /// Test accounts by alias, in matrix order.
    public var accounts: [Account]
    /// Store settings every case starts from (a case may override them).
    public var store: StoreSettings
    public var cases: [MatrixCase]
    /// Named selections of cases (`--profile`), in matrix order.
    public var profiles: [CaseProfile]

    public init(schemaVersion: Int = Matrix.supportedSchemaVersion, name: String, app: AppInfo, catalogPath: String? = nil,
                catalog: StoreKitConfiguration, tiers: [Tier], consumables: [String: ConsumableSpec] = [:],
                nonRenewing: [String: NonRenewingSpec] = [:], accounts: [Account], store: StoreSettings = .init(),
                cases: [MatrixCase], profiles: [CaseProfile] = []) {
        self.schemaVersion = schemaVersion
        self.name = name
        self.app = app
        self.catalogPath = catalogPath
        self.catalog = catalog
        self.tiers = tiers
        self.consumables = consumables
        self.nonRenewing = nonRenewing
        self.accounts = accounts
        self.store = store
        self.cases = cases
        self.profiles = profiles
    }

    /// The account with `alias`.
    public func account(_ alias: String) -> Account? {
        accounts.first { $0.alias == alias }
    }

    /// The tiers a set of product IDs grants, in matrix order.
    public func access(for productIDs: some Sequence<String>) -> [String] {
        let owned = Set(productIDs)
        return tiers.filter { !owned.isDisjoint(with: $0.productIDs) }.map(\.name)
    }

    /// The store settings a case runs with: the matrix's, overridden by the case's.
    public func storeSettings(for matrixCase: MatrixCase) -> StoreSettings {
        store.overridden(by: matrixCase.store)
    }
}

/// The app under test.
public struct AppInfo: Sendable, Hashable, Codable {
    /// The bundle identifier, e.g. `com.example.myapp`.
    public var bundleId: String
    /// The App Store's numeric app identifier (`appAppleId`), when known; Production data requires it.
    public var appAppleId: Int64?
    /// `bundleId` is a guess (`matrix init` without `--bundle-id`): guided runs never show it to a tester as
    /// the app to open.
    public var bundleIdGuessed: Bool

    public init(bundleId: String, appAppleId: Int64? = nil, bundleIdGuessed: Bool = false) {
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.bundleIdGuessed = bundleIdGuessed
    }
}

/// A level of access the app grants, such as `pro`.
public struct Tier: Sendable, Hashable, Codable {
    public var name: String
    /// The product IDs that grant it.
    public var productIDs: [String]

    public init(name: String, productIDs: [String]) {
        self.name = name
        self.productIDs = productIDs
    }
}

/// How the app credits a consumable.
public struct ConsumableSpec: Sendable, Hashable, Codable {
    /// The name of the balance credited, e.g. `coins`.
    public var balance: String
    /// How much one purchase (quantity 1) credits.
    public var amount: Int

    public init(balance: String, amount: Int) {
        self.balance = balance
        self.amount = amount
    }
}

/// How long the app grants a non-renewing subscription; StoreKit gives these no expiration date.
/// Apple: https://developer.apple.com/documentation/storekit/transaction/expirationdate
public struct NonRenewingSpec: Sendable, Hashable, Codable {
    public var duration: ISO8601Duration

    public init(duration: ISO8601Duration) {
        self.duration = duration
    }
}

/// A test account: an alias in the matrix, a Sandbox Apple Account in guided runs.
public struct Account: Sendable, Hashable, Codable {
    public var alias: String
    /// What state the account is meant to be in, in words.
    public var description: String?
    /// Product IDs the account already owns when a case starts (bought before the case, finished).
    public var owns: [String]
    /// The alias of the family organizer, when the account is a Family Sharing member.
    public var familyOrganizer: String?

    public init(alias: String, description: String? = nil, owns: [String] = [], familyOrganizer: String? = nil) {
        self.alias = alias
        self.description = description
        self.owns = owns
        self.familyOrganizer = familyOrganizer
    }

    /// The account's described state for evidence: its description, else what it owns, else "new".
    public var stateDescription: String {
        if let description, !description.isEmpty { return description }
        if !owns.isEmpty { return "owns " + owns.joined(separator: ", ") }
        if let familyOrganizer { return "family member of \(familyOrganizer)" }
        return "new account, no purchases"
    }
}

/// Store behaviour a case runs with: the StoreKit Testing settings and App Store Connect choices that change
/// what the App Store does. `nil` means "as the level above says" (case → matrix → `.storekit` settings →
/// defaults).
public struct StoreSettings: Sendable, Hashable, Codable {
    /// Purchases need a parent's approval and return `pending` (`_askToBuyEnabled`).
    public var askToBuy: Bool?
    /// The billing grace period in days (3, 16 or 28), or 0 when off (`_billingGracePeriodEnabled`).
    /// Apple: https://developer.apple.com/help/app-store-connect/manage-subscriptions/enable-billing-grace-period-for-auto-renewable-subscriptions
    public var gracePeriodDays: Int?
    /// The storefront, ISO 3166-1 alpha-3 (`_storefront`), e.g. `USA`.
    public var storefront: String?
    /// The clock the local environment models for these cases (`real`, `xcode:<timeRate>`, `sandbox:<minutes>`,
    /// `testflight`), overriding `--clock`; other environments skip a case whose clock is not theirs.
    public var clock: String?

    public init(askToBuy: Bool? = nil, gracePeriodDays: Int? = nil, storefront: String? = nil, clock: String? = nil) {
        self.askToBuy = askToBuy
        self.gracePeriodDays = gracePeriodDays
        self.storefront = storefront
        self.clock = clock
    }

    /// These settings with every value `other` sets replacing this one's.
    public func overridden(by other: StoreSettings) -> StoreSettings {
        StoreSettings(askToBuy: other.askToBuy ?? askToBuy,
                      gracePeriodDays: other.gracePeriodDays ?? gracePeriodDays,
                      storefront: other.storefront ?? storefront, clock: other.clock ?? clock)
    }
}
