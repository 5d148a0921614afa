/// One case of a matrix: an ordered list of steps on one account, starting from a fresh state.
public struct MatrixCase: Sendable, Hashable, Codable {
    /// Unique in the matrix, e.g. `fresh-purchase/pro`.
    public var id: String
    /// What the case exercises, e.g. `fresh-purchase`, `refund`, `grace-period`.
    public var kind: String
    /// The alias of the account the steps act on, unless a step names another.
    public var account: String
    public var description: String?
    /// Labels for selecting cases (`--tag`, profiles), e.g. `smoke`, `release-blocker`.
    public var tags: [String]
    /// Store settings for this case only.
    public var store: StoreSettings
    public var steps: [Step]

    public init(id: String, kind: String, account: String, description: String? = nil, tags: [String] = [], store: StoreSettings = .init(),
                steps: [Step]) {
        self.id = id
        self.kind = kind
        self.account = account
        self.description = description
        self.tags = tags
        self.store = store
        self.steps = steps
    }

    /// Case kinds the documentation names; other kinds are accepted with a warning.
    public static let knownKinds: [String] = [
        "fresh-purchase", "cancel", "pending", "restore", "renewal", "cancellation", "grace-period", "billing-retry",
        "refund", "revocation", "upgrade", "downgrade", "crossgrade", "consumable", "non-renewing", "family-sharing",
        "offer", "price-increase", "interrupted", "expiration", "environment-limit",
    ]
}

/// One action, its parameters, and what should be observed after it.
///
/// Parameters are flat and optional; ``MatrixLoader`` checks that each action gets the ones it needs and
/// none it does not take. The same shape travels to external drivers and into evidence.
public struct Step: Sendable, Hashable, Codable {
    public var action: Action
    /// The product acted on (`purchase`, `refund`, `renew`…).
    public var product: String?
    /// For `purchase`: the outcome the tester or environment should produce (default `success`).
    public var outcome: PurchaseOutcome?
    /// For `purchase`: how many (consumables only; default 1).
    public var quantity: Int?
    /// For `purchase`: a promotional or win-back offer's `offerID`; for `purchaseOutsideApp` also an offer code's.
    /// (The introductory offer needs no asking: an eligible customer gets it.)
    public var offer: String?
    /// For `purchase`: the app account token, a UUID string.
    public var appAccountToken: String?
    /// For `renew`: how many renewals (default 1).
    public var count: Int?
    /// For `advanceTime`: how far, an ISO 8601 duration.
    public var by: ISO8601Duration?
    /// For `advanceTime`: up to which point of the subscription's life.
    public var to: TimePoint?
    /// The account that acts, when not the case's account (Family Sharing organizer, for instance).
    public var account: String?
    /// For `switchDevice`: the device's name (default `second`).
    public var device: String?
    /// For `purchase`: the app is terminated while handling the transaction.
    public var terminate: TerminationPoint?
    /// For `failRenewal`: whether a billing grace period applies (default: the case's store settings).
    public var gracePeriod: Bool?
    /// For `refund`: Apple's `revocationReason` (0 other, 1 a problem with the app; default 0).
    public var reason: Int?
    /// For `requestPriceIncrease`: the new price, as the catalog writes prices (`"5.99"`).
    public var price: String?
    /// For `extendRenewalDate` and `extendRenewalDatesForAllSubscribers`: how many days, 1 to 90.
    public var extendByDays: Int?
    /// A failure the step's next StoreKit call of a kind meets (`Product.products(for:)`, `purchase(options:)`,
    /// `AppStore.sync()`, verification), as StoreKit Testing sets one up; embedded environments only.
    public var failNext: FailNext?
    /// What should be observed after the step; `nil` records the observation without judging it.
    public var expect: Expectation?
    /// A note for people reading the matrix or guiding a tester.
    public var note: String?

    public init(action: Action, product: String? = nil, outcome: PurchaseOutcome? = nil, quantity: Int? = nil,
                offer: String? = nil, appAccountToken: String? = nil, count: Int? = nil, by: ISO8601Duration? = nil,
                to: TimePoint? = nil, account: String? = nil, device: String? = nil, terminate: TerminationPoint? = nil,
                gracePeriod: Bool? = nil, reason: Int? = nil, price: String? = nil, extendByDays: Int? = nil, failNext: FailNext? = nil,
                expect: Expectation? = nil, note: String? = nil) {
        self.action = action
        self.product = product
        self.outcome = outcome
        self.quantity = quantity
        self.offer = offer
        self.appAccountToken = appAccountToken
        self.count = count
        self.by = by
        self.to = to
        self.account = account
        self.device = device
        self.terminate = terminate
        self.gracePeriod = gracePeriod
        self.reason = reason
        self.price = price
        self.extendByDays = extendByDays
        self.failNext = failNext
        self.expect = expect
        self.note = note
    }

    /// Whether the step needs billing retry: `failRenewal`, `recoverBilling`, or `advanceTime` to
    /// `gracePeriodEnd` or `billingRetryEnd`. An environment without billing retry (TestFlight,
    /// ``EnvironmentKind/billingRetryUnsupportedReason``) skips these steps.
    public var needsBillingRetry: Bool {
        switch action {
        case .failRenewal, .recoverBilling: true
        case .advanceTime: to == .gracePeriodEnd || to == .billingRetryEnd
        default: false
        }
    }
}

/// What a `purchase` step asks the environment to produce.
/// Apple: https://developer.apple.com/documentation/storekit/product/purchaseresult
public enum PurchaseOutcome: String, Sendable, Hashable, Codable, CaseIterable {
    /// The purchase completes (`Product.PurchaseResult.success`).
    case success
    /// The customer cancels the sheet (`userCancelled`).
    case userCancelled
    /// The purchase waits for approval, as with Ask to Buy (`pending`).
    case pending
    /// The purchase fails with a StoreKit error.
    case failed
    /// The purchase is interrupted (for instance, terms to accept) until `resolveIssue`.
    case interrupted
}

/// A point in a subscription's life that `advanceTime` can move to.
public enum TimePoint: String, Sendable, Hashable, Codable, CaseIterable {
    /// The current period's `expiresDate`.
    case expiration
    /// The end of the billing grace period (`gracePeriodExpiresDate`).
    case gracePeriodEnd
    /// The end of the billing retry period (60 days after the failed renewal).
    case billingRetryEnd
}

/// Where an app is terminated while it handles a purchased transaction (verify, deliver, finish).
public enum TerminationPoint: String, Sendable, Hashable, Codable, CaseIterable {
    /// Before the app delivers the content.
    case beforeDelivery
    /// Before the app calls `finish()`.
    case beforeFinish
}
