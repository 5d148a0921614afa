import MatrixModel

/// The params of `initialize`: the protocol version and the whole matrix, as its files and as a digest that
/// simple drivers can use without reading the `.storekit` format.
///
/// A driver that wants the full model (every case, offer and setting) rebuilds it from ``matrix``'s and
/// ``catalog``'s `source` with ``loadMatrix()`` (Swift) or its own JSON parser.
public struct InitializeParams: Sendable, Hashable, Codable {
    /// The runner's protocol version (``DriverProtocol/version``).
    public var protocolVersion: Int
    /// Who is calling.
    public var runner: Runner
    /// The matrix file.
    public var matrix: MatrixFile
    /// The catalog: the `.storekit` file, and its products and subscription groups.
    public var catalog: Catalog
    /// Tiers in matrix order: each grants access when the app holds any of its `productIDs`.
    public var tiers: [Tier]
    /// Consumables the app credits to a balance, by product ID: `{"balance": "coins", "amount": 100}`.
    public var consumables: [String: ConsumableSpec]
    /// Non-renewing subscriptions and the duration (ISO 8601) the app grants for each, by product ID.
    public var nonRenewing: [String: NonRenewingSpec]
    /// Test accounts in matrix order: `alias`, `description`, `owns` (product IDs owned before each case),
    /// `familyOrganizer`.
    public var accounts: [Account]
    /// The cases in matrix order (their steps arrive one by one with `perform`).
    public var cases: [CaseSummary]

    /// The params from their parts; see ``init(matrix:matrixPath:matrixSource:catalogSource:runner:)`` to build them from a matrix.
    public init(protocolVersion: Int = DriverProtocol.version, runner: Runner, matrix: MatrixFile, catalog: Catalog, tiers: [Tier],
                consumables: [String: ConsumableSpec], nonRenewing: [String: NonRenewingSpec], accounts: [Account],
                cases: [CaseSummary]) {
        self.protocolVersion = protocolVersion
        self.runner = runner
        self.matrix = matrix
        self.catalog = catalog
        self.tiers = tiers
        self.consumables = consumables
        self.nonRenewing = nonRenewing
        self.accounts = accounts
        self.cases = cases
    }

    /// The program driving the run.
    public struct Runner: Sendable, Hashable, Codable {
        /// `matrix`.
        public var name: String
        /// Its version, e.g. `0.2.0`.
        public var version: String

        /// Memberwise.
        public init(name: String, version: String) {
            self.name = name
            self.version = version
        }
    }

    /// The matrix file as the user wrote it.
    public struct MatrixFile: Sendable, Hashable, Codable {
        /// The matrix's `name`.
        public var name: String
        /// The path the user named on the command line, when there is a file.
        public var path: String?
        /// The file's text (UTF-8 JSON), exactly as read; `nil` only for a matrix built in code.
        public var source: String?
        /// The app under test: `bundleId` and, when known, `appAppleId`.
        public var app: AppInfo

        /// Memberwise.
        public init(name: String, path: String?, source: String?, app: AppInfo) {
            self.name = name
            self.path = path
            self.source = source
            self.app = app
        }
    }

    /// The products the matrix uses.
    public struct Catalog: Sendable, Hashable, Codable {
        /// The `catalog` path as written in the matrix (relative to the matrix file); `nil` for an inline catalog.
        public var path: String?
        /// The `.storekit` file's text, exactly as read; `nil` for an inline catalog (it is in the matrix source).
        public var source: String?
        /// Every product, in catalog order.
        public var products: [Product]
        /// Subscription groups, in catalog order.
        public var subscriptionGroups: [SubscriptionGroup]

        /// Memberwise.
        public init(path: String?, source: String?, products: [Product], subscriptionGroups: [SubscriptionGroup]) {
            self.path = path
            self.source = source
            self.products = products
            self.subscriptionGroups = subscriptionGroups
        }
    }

    /// One product of the catalog.
    /// Apple: https://developer.apple.com/documentation/storekit/product
    public struct Product: Sendable, Hashable, Codable {
        /// The product identifier, e.g. `com.example.myapp.pro`.
        public var productId: String
        /// StoreKit's `Product.ProductType`: `consumable`, `nonConsumable`, `nonRenewable`, `autoRenewable`.
        public var type: String
        /// The catalog's reference name and display name, when present.
        public var referenceName: String?
        public var displayName: String?
        /// As written in the catalog, a decimal string such as `"4.99"`.
        public var displayPrice: String
        /// The price in milliunits of the currency (`4.99` → `4990`).
        public var priceMilliunits: Int64
        /// Whether Family Sharing applies.
        public var familyShareable: Bool
        /// Auto-renewable subscriptions: the subscription group's `id`.
        public var subscriptionGroupId: String?
        /// Auto-renewable subscriptions: the level in the group, 1 = highest.
        public var groupNumber: Int?
        /// Auto-renewable subscriptions: the renewal period, an ISO 8601 duration (`P1M`).
        public var subscriptionPeriod: String?

        /// Memberwise.
        public init(productId: String, type: String, referenceName: String? = nil, displayName: String? = nil, displayPrice: String,
                    priceMilliunits: Int64, familyShareable: Bool, subscriptionGroupId: String? = nil, groupNumber: Int? = nil,
                    subscriptionPeriod: String? = nil) {
            self.productId = productId
            self.type = type
            self.referenceName = referenceName
            self.displayName = displayName
            self.displayPrice = displayPrice
            self.priceMilliunits = priceMilliunits
            self.familyShareable = familyShareable
            self.subscriptionGroupId = subscriptionGroupId
            self.groupNumber = groupNumber
            self.subscriptionPeriod = subscriptionPeriod
        }
    }

    /// A subscription group: its products share one subscription.
    public struct SubscriptionGroup: Sendable, Hashable, Codable {
        /// The group's `id` in the catalog.
        public var id: String
        /// The group's name; `subscriptionStatus` and `renewalInfo` in observations are keyed by it.
        public var name: String
        /// The group's products.
        public var productIds: [String]

        /// Memberwise.
        public init(id: String, name: String, productIds: [String]) {
            self.id = id
            self.name = name
            self.productIds = productIds
        }
    }

    /// A case, without its steps.
    public struct CaseSummary: Sendable, Hashable, Codable {
        /// The case's `id` and `kind`.
        public var id: String
        public var kind: String
        /// The alias of the account the case acts on.
        public var account: String
        /// How many steps the case has.
        public var stepCount: Int

        /// Memberwise.
        public init(id: String, kind: String, account: String, stepCount: Int) {
            self.id = id
            self.kind = kind
            self.account = account
            self.stepCount = stepCount
        }
    }
}
