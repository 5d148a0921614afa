import MatrixModel

/// The params of `reset`: start one case on fresh state.
///
/// Fresh state means: the app freshly installed and not running, every account of the matrix back to its
/// starting state (owning exactly its `owns` products, finished; family memberships set), no pending
/// purchases, and the store's clock (where the environment has one) at its starting point.
public struct ResetParams: Sendable, Hashable, Codable {
    /// The case about to run.
    public var `case`: Case
    /// The case's account (steps may name another with their `account`).
    public var account: Account
    /// The store settings the case runs with, resolved: case, then matrix, then the `.storekit` file's settings,
    /// then the defaults.
    public var store: Store

    /// The params from their parts.
    public init(case matrixCase: Case, account: Account, store: Store) {
        self.case = matrixCase
        self.account = account
        self.store = store
    }

    /// The case, without its steps.
    public struct Case: Sendable, Hashable, Codable {
        /// Unique in the matrix, e.g. `refund/pro`.
        public var id: String
        /// What the case exercises, e.g. `refund`.
        public var kind: String
        /// The case's description, when the matrix gives one.
        public var description: String?
        /// 0-based position of the case in the matrix.
        public var index: Int
        /// How many `perform` requests follow (fewer when a step fails or errors: the rest are not performed).
        public var stepCount: Int

        /// Memberwise.
        public init(id: String, kind: String, description: String? = nil, index: Int, stepCount: Int) {
            self.id = id
            self.kind = kind
            self.description = description
            self.index = index
            self.stepCount = stepCount
        }
    }

    /// Store behaviour for the case, every value resolved.
    public struct Store: Sendable, Hashable, Codable {
        /// Purchases need a parent's approval and return `pending` (Ask to Buy).
        public var askToBuy: Bool
        /// The billing grace period in days (3, 16 or 28); 0 when off.
        public var gracePeriodDays: Int
        /// The storefront, ISO 3166-1 alpha-3, e.g. `USA`.
        public var storefront: String
        /// The clock the case models when the matrix sets one (case over matrix), e.g. `sandbox:5`, `xcode:4`;
        /// `nil`: the environment's own.
        public var clock: String?

        /// Memberwise.
        public init(askToBuy: Bool, gracePeriodDays: Int, storefront: String, clock: String? = nil) {
            self.askToBuy = askToBuy
            self.gracePeriodDays = gracePeriodDays
            self.storefront = storefront
            self.clock = clock
        }
    }
}

extension ResetParams {
    /// The params that start `matrixCase` of `matrix`.
    ///
    /// Settings resolve as the local environment resolves them (`StoreConfiguration(matrix:case:)`): a grace
    /// period switched on in the `.storekit` file without a duration is 16 days, App Store Connect's default.
    public init(matrix: Matrix, case matrixCase: MatrixCase) {
        let settings = matrix.storeSettings(for: matrixCase)
        let file = matrix.catalog.settings
        let index = matrix.cases.firstIndex { $0.id == matrixCase.id } ?? 0
        self.init(
            case: Case(id: matrixCase.id, kind: matrixCase.kind, description: matrixCase.description, index: index,
                       stepCount: matrixCase.steps.count),
            account: matrix.account(matrixCase.account) ?? Account(alias: matrixCase.account),
            store: Store(askToBuy: settings.askToBuy ?? file.askToBuyEnabled ?? false,
                         gracePeriodDays: settings.gracePeriodDays ?? ((file.billingGracePeriodEnabled ?? false) ? 16 : 0),
                         storefront: settings.storefront ?? file.storefront ?? "USA", clock: settings.clock))
    }
}
