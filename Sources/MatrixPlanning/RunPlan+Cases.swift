extension RunPlan {
    /// One step as a person performs it.
    public struct StepPlan: Sendable, Hashable, Encodable {
        /// The step's 0-based index in its case, as evidence numbers it.
        public var index: Int
        /// The step's action, e.g. `renew`.
        public var action: String
        /// What the person does, one line: "buy Plus Monthly (com.example.plus.monthly)".
        public var instruction: String
        /// What to check afterwards, one line, when the step expects something a person can see.
        public var check: String?
        /// How long the person waits for the store, ms (0 for steps that do not wait).
        public var waitMs: Int64
        /// ``waitMs`` in words, e.g. "5 minutes"; `nil` when there is no wait.
        public var wait: String?
        /// Why the step cannot be performed in this environment (an environment limit), when it cannot.
        public var skipped: String?
        /// Whether the wait is real time in every environment (`advanceTime by`), not an accelerated period.
        public var realTime: Bool

        /// A step that waits `waitMs` (0 by default) and is performed unless `skipped` says why not.
        public init(index: Int, action: String, instruction: String, check: String? = nil, waitMs: Int64 = 0, wait: String? = nil,
                    skipped: String? = nil, realTime: Bool = false) {
            self.index = index
            self.action = action
            self.instruction = instruction
            self.check = check
            self.waitMs = waitMs
            self.wait = wait
            self.skipped = skipped
            self.realTime = realTime
        }
    }

    /// Settings that belong to the app, not to a test account, and so hold for every case running at the same
    /// time: cases that need different values cannot run in parallel (``RunPlan/Group``).
    ///
    /// `nil` fields are settings the case does not depend on. Apple: the billing grace period is turned on "for
    /// each app in App Store Connect … for all auto-renewable subscriptions in the app"
    /// (https://developer.apple.com/help/app-store-connect/manage-subscriptions/enable-billing-grace-period-for-auto-renewable-subscriptions);
    /// a subscription's price in App Store Connect is the price every subscriber renews at
    /// (https://developer.apple.com/documentation/storekit/managing-price-increases-for-auto-renewable-subscriptions).
    public struct AppSettings: Sendable, Hashable, Encodable {
        /// The billing grace period the case needs, days (0 = off).
        public var gracePeriodDays: Int?
        /// The product whose price the case raises; such a case runs alone.
        public var priceIncrease: String?

        /// Settings with the given values; both `nil` means the case depends on none.
        public init(gracePeriodDays: Int? = nil, priceIncrease: String? = nil) {
            self.gracePeriodDays = gracePeriodDays
            self.priceIncrease = priceIncrease
        }

        /// Whether the case depends on no app-wide setting and may run in any group.
        public var isEmpty: Bool { gracePeriodDays == nil && priceIncrease == nil }
    }

    /// One case and its steps.
    public struct CasePlan: Sendable, Hashable, Encodable {
        /// The case's `id`, `kind` and acting `account`, as in the matrix.
        public var id: String
        /// See ``id``.
        public var kind: String
        /// See ``id``.
        public var account: String
        /// Every account alias the case uses (the acting account, accounts steps act as, family organizers), in
        /// first-use order. Cases that share an alias share a test account, so they run on the same lane.
        public var accounts: [String]
        /// The clock the case runs on, e.g. `sandbox:5`.
        public var clock: String
        /// Why the whole case cannot run in this environment (its `store.clock` is another environment's).
        public var skipped: String?
        /// Why the case cannot run on its lane's shared test account and needs accounts of its own (a Sandbox
        /// Test Family, an account still eligible for an introductory offer); `nil` when it can share.
        public var dedicated: String?
        /// The app-wide settings the case depends on; cases are grouped by them.
        public var appSettings: AppSettings
        /// What the tester does before the first step, in order: which account, clearing its purchase history,
        /// what it must own and how to get it, family membership, per-account settings, a fresh install.
        public var setup: [String]
        /// What the tester does after the last step so that the next case on the account starts clean.
        public var teardown: [String]
        /// Every step, in order (skipped ones included, with their reason).
        public var steps: [StepPlan]
        /// The 1-based group the case runs in; `nil` for a skipped case. Set by ``RunPlan``.
        public var group: Int?
        /// The 1-based lane (test account) that runs the case; `nil` for a skipped case. Set by ``RunPlan``.
        public var lane: Int?

        /// A case and its steps; ``waitMs`` is computed from the steps. `accounts` defaults to `[account]`.
        public init(id: String, kind: String, account: String, accounts: [String]? = nil, clock: String, skipped: String? = nil,
                    dedicated: String? = nil, appSettings: AppSettings = .init(), setup: [String] = [], teardown: [String] = [],
                    steps: [StepPlan]) {
            self.id = id
            self.kind = kind
            self.account = account
            self.accounts = accounts ?? [account]
            self.clock = clock
            self.skipped = skipped
            self.dedicated = dedicated
            self.appSettings = appSettings
            self.setup = setup
            self.teardown = teardown
            self.steps = steps
        }

        /// The case's waiting time, ms: the sum of its steps' waits.
        public var waitMs: Int64 { steps.reduce(0) { $0 + $1.waitMs } }

        private enum CodingKeys: String, CodingKey {
            case id, kind, account, accounts, clock, skipped, group, lane, dedicated, appSettings, setup, teardown, waitMs, steps
        }

        /// Encodes the case with its ``waitMs``.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(kind, forKey: .kind)
            try container.encode(account, forKey: .account)
            try container.encode(accounts, forKey: .accounts)
            try container.encode(clock, forKey: .clock)
            try container.encodeIfPresent(skipped, forKey: .skipped)
            try container.encodeIfPresent(group, forKey: .group)
            try container.encodeIfPresent(lane, forKey: .lane)
            try container.encodeIfPresent(dedicated, forKey: .dedicated)
            try container.encode(appSettings, forKey: .appSettings)
            try container.encode(setup, forKey: .setup)
            try container.encode(teardown, forKey: .teardown)
            try container.encode(waitMs, forKey: .waitMs)
            try container.encode(steps, forKey: .steps)
        }
    }

    /// How to do one thing in the environment, and the Apple page that says so.
    public struct HowTo: Sendable, Hashable, Encodable {
        /// A short name, e.g. `refund`.
        public var capability: String
        /// What to do, in a sentence or two.
        public var how: String
        /// Apple's page.
        public var source: String

        /// A how-to for `capability`.
        public init(capability: String, how: String, source: String) {
            self.capability = capability
            self.how = how
            self.source = source
        }
    }
}
