import MatrixModel

/// A documented limit of an Apple test environment that makes a step differ from the reference without
/// anything being wrong with the app, its products or its build.
///
/// Four come from what a run observed (renewal limits, TestFlight's daily renewals and its missing billing
/// retry); the others are the limits a guided run skips steps for, one per ``GuidedLimit`` and derived from it,
/// so that every limit the runner applies is one `compare` knows, stated once.
/// ``explain(_:role:caseRecords:passing:)`` recognises them from evidence records with the rules
/// docs/compare.md lists.
public struct KnownDivergence: RawRepresentable, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The divergence's name in reports and JSON: `sandboxRenewalLimit`, `askToBuyAnswer`, …
    public let rawValue: String

    private init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// The divergence named `rawValue`, or `nil` for a name that is none.
    public init?(rawValue: String) {
        guard let known = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = known
    }

    /// Sandbox renews an auto-renewable subscription at most 12 times after the purchase.
    public static let sandboxRenewalLimit = KnownDivergence("sandboxRenewalLimit")
    /// TestFlight renews a subscription at most 6 times.
    public static let testFlightRenewalLimit = KnownDivergence("testFlightRenewalLimit")
    /// TestFlight renews every subscription once a day, whatever its duration.
    public static let testFlightDailyRenewals = KnownDivergence("testFlightDailyRenewals")
    /// TestFlight cannot put a subscription into billing retry or a billing grace period.
    public static let testFlightBillingRetry = KnownDivergence("testFlightBillingRetry")

    /// The divergence a guided run's skip for `limit` is in an environment of `role` (`sandbox` or
    /// `testflight`): the renewal and billing-retry limits are two of the four observed divergences, every
    /// other limit is its own divergence, named as the limit is.
    public init(_ limit: GuidedLimit, role: EnvironmentRole) {
        switch limit {
        case .renewalLimit: self = role == .testflight ? .testFlightRenewalLimit : .sandboxRenewalLimit
        case .billingRetry: self = .testFlightBillingRetry
        default: self.init(limit.rawValue)
        }
    }

    /// Every divergence: the four observed ones, then one per ``GuidedLimit`` that is not one of them.
    public static var allCases: [KnownDivergence] {
        [.sandboxRenewalLimit, .testFlightRenewalLimit, .testFlightDailyRenewals, .testFlightBillingRetry]
            + GuidedLimit.allCases.filter { $0 != .renewalLimit && $0 != .billingRetry }.map { KnownDivergence($0.rawValue) }
    }

    /// The guided limit the divergence stands for, when it is not one of the four observed ones.
    public var guidedLimit: GuidedLimit? {
        GuidedLimit(rawValue: rawValue).flatMap { $0 == .renewalLimit || $0 == .billingRetry ? nil : $0 }
    }

    public var description: String { rawValue }

    /// The environments the limit belongs to.
    public var environments: [EnvironmentKind] {
        switch self {
        case .sandboxRenewalLimit: [.sandbox]
        case .testFlightRenewalLimit, .testFlightDailyRenewals, .testFlightBillingRetry: [.testflight]
        default: guidedLimit == .failedPurchase || guidedLimit == .interruptedPurchase ? [.testflight] : [.sandbox, .testflight]
        }
    }

    /// The environments in words for reports: `sandbox`, `sandbox and testflight`.
    public var environmentNames: String {
        environments.map(\.name).joined(separator: " and ")
    }

    /// The limit in one sentence, as Apple documents it.
    public var summary: String {
        switch self {
        case .sandboxRenewalLimit:
            "Sandbox renews an auto-renewable subscription up to \(EnvironmentKind.sandbox.renewalLimit ?? 0) times after the purchase; then auto-renew stops "
                + "and the subscription expires."
        case .testFlightRenewalLimit:
            "TestFlight renews a subscription up to \(EnvironmentKind.testflight.renewalLimit ?? 0) times within a week; then auto-renew is turned off."
        case .testFlightDailyRenewals:
            "TestFlight renews every subscription once a day, whatever its duration, so a step that waits for a "
                + "renewal waits a day."
        case .testFlightBillingRetry:
            GuidedLimit.billingRetry.summary
        default:
            guidedLimit?.summary ?? rawValue
        }
    }

    /// The Apple documentation page that states the limit; `nil` where Apple is silent and the limit is this
    /// project's reading (``GuidedLimit/source``).
    public var source: String? {
        switch self {
        case .sandboxRenewalLimit, .testFlightRenewalLimit, .testFlightDailyRenewals, .testFlightBillingRetry:
            environments.first?.limitsPage
        default:
            guidedLimit?.source
        }
    }

    /// How many renewals the environment performs, for the renewal limits.
    public var renewalCap: Int? {
        switch self {
        case .sandboxRenewalLimit, .testFlightRenewalLimit: environments.first?.renewalLimit
        default: nil
        }
    }

    /// A day, ms: TestFlight's renewal interval.
    static let day: Int64 = 86_400_000

    /// The documented limit that explains why `record` did not pass, if one does.
    ///
    /// The limits of Sandbox apply to a `sandbox` run and to any record whose `clock` models Sandbox
    /// (`sandbox:<rate>`, as `matrix run --clock` writes); TestFlight's likewise (`testflight`). Rules, in order
    /// (docs/compare.md):
    /// 1. `skipped` for an environment limit the record names (``EvidenceRecord/environmentLimit``, which a
    ///    guided run writes on the skipped step and the rest of its case), or, in evidence written without it,
    ///    with a reason that names a limit (renewing 12 times in Sandbox; billing retry or grace period, renewing
    ///    6 times, or daily renewals in TestFlight).
    /// 2. TestFlight, not `pass` (a skip whatever its reason): the step is `failRenewal`, `recoverBilling` or
    ///    `resolveIssue`, follows a `failRenewal` of the case, or expects billing retry or a grace period.
    /// 3. `fail`, and the observation's store message (or, in older evidence, its message) names the renewal limit (the environment stopped auto-renew).
    /// 4. `fail`: the run observed at least the cap of renewals (Sandbox 12, TestFlight 6), and the step expects
    ///    more renewals than the cap or a run that passed the step observed more.
    ///
    /// Rules 3 and 4 never explain a step that observed access its expectation does not grant: a limit ends a
    /// subscription early, it does not keep one going.
    /// 5. TestFlight, `error`: the step takes at least a day of wall time (`modelledWallTimeMs`, else the store
    ///    time since the case's previous step).
    ///
    /// Rules 2 to 5 do not apply when a run under the same limits (its environment's, or its clock's) passed the
    /// step: the limits did not stop it there.
    ///
    /// - Parameters:
    ///   - record: the step's record in one run; `blocked` records are never explained.
    ///   - role: the run's environment role.
    ///   - caseRecords: the same run's records of the case, in step order.
    ///   - passing: the records of the same step in runs where it passed.
    public static func explain(_ record: EvidenceRecord, role: EnvironmentRole, caseRecords: [EvidenceRecord],
                               passing: [EvidenceRecord]) -> KnownDivergence? {
        guard record.verdict != .pass, record.verdict != .blocked,
              let role = limitedRole(role, clock: record.clock) else { return nil }
        if record.verdict == .skipped {
            if let limit = record.environmentLimit.flatMap(GuidedLimit.init(rawValue:)) {
                let divergence = KnownDivergence(limit, role: role)
                if divergence.environments.contains(where: { $0.role == role }) { return divergence }
            }
            if let named = fromReason(record.reason ?? "", role: role) { return named }
        }
        // A run under the same limits that passed the step shows they do not stop it: the failure is the app's
        // (an app environment on the modelled Sandbox clock beside the reference on that clock, say).
        if record.verdict != .skipped, passing.contains(where: {
            limitedRole(EnvironmentRole(environment: $0.environment), clock: $0.clock) == role
        }) {
            return nil
        }
        if role == .testflight, involvesBillingRetry(record, caseRecords: caseRecords) {
            return .testFlightBillingRetry
        }
        let cap: KnownDivergence = role == .sandbox ? .sandboxRenewalLimit : .testFlightRenewalLimit
        if record.verdict == .fail, let limit = cap.renewalCap, let observed = record.observed, !grantsMore(record) {
            // The store's message (older evidence put it in the app's).
            if let message = observed.storeMessage ?? observed.message, fromReason(message, role: role) == cap { return cap }
            let expectsMore = (record.expected?.renewals ?? 0) > limit
            let othersSawMore = passing.contains { ($0.observed?.renewals ?? 0) > limit }
            if observed.renewals >= limit && (expectsMore || othersSawMore) { return cap }
        }
        if role == .testflight, record.verdict == .error, let wait = wallTime(record, caseRecords: caseRecords), wait >= day {
            return .testFlightDailyRenewals
        }
        return nil
    }

    /// Whether the step observed access its expectation does not grant: a renewal limit ends a subscription
    /// early, so it can take access away, never give any (an app that keeps access after expiry is its own bug).
    static func grantsMore(_ record: EvidenceRecord) -> Bool {
        guard let expected = record.expected?.access, let observed = record.observed?.access else { return false }
        return !Set(observed).isSubset(of: Set(expected))
    }

    /// Whose limits apply: a Sandbox or TestFlight run's own, else those of the schedule the record's clock
    /// models (`sandbox:5`, `testflight`); `nil` when neither.
    static func limitedRole(_ role: EnvironmentRole, clock: String?) -> EnvironmentRole? {
        if role == .sandbox || role == .testflight { return role }
        switch RenewalSchedule.environment(ofClock: clock) {
        case .sandbox: return .sandbox
        case .testflight: return .testflight
        default: return nil
        }
    }

    /// Rule 1: a skip reason that names a limit of the environment.
    static func fromReason(_ reason: String, role: EnvironmentRole) -> KnownDivergence? {
        let text = reason.lowercased()
        let words = Set(text.split { !$0.isLetter && !$0.isNumber }.map(String.init))
        let aboutRenewals = text.contains("renew")
        switch role {
        case .sandbox:
            if aboutRenewals && (words.contains(String(Self.sandboxRenewalLimit.renewalCap ?? 0)) || words.contains("twelve")) {
                return .sandboxRenewalLimit
            }
        case .testflight:
            if text.contains("billing retry") || text.contains("grace period") { return .testFlightBillingRetry }
            if aboutRenewals && (words.contains(String(Self.testFlightRenewalLimit.renewalCap ?? 0)) || words.contains("six")) {
                return .testFlightRenewalLimit
            }
            if aboutRenewals && (words.contains("daily") || text.contains("once a day") || text.contains("24 hours")) {
                return .testFlightDailyRenewals
            }
        default:
            break
        }
        return nil
    }

    /// Rule 2: the step belongs to a billing-retry flow.
    static func involvesBillingRetry(_ record: EvidenceRecord, caseRecords: [EvidenceRecord]) -> Bool {
        let billingActions: Set<Action> = [.failRenewal, .recoverBilling, .resolveIssue]
        if billingActions.contains(record.action.action) { return true }
        if caseRecords.contains(where: { $0.step < record.step && $0.action.action == .failRenewal }) { return true }
        guard let expected = record.expected else { return false }
        let states = Set((expected.subscriptionStatus ?? [:]).values)
        return states.contains("inBillingRetryPeriod") || states.contains("inGracePeriod")
            || expected.renewalInfo?.isInBillingRetryPeriod == true
    }

    /// How long the step takes in wall time in the run's environment, ms, when the evidence says.
    static func wallTime(_ record: EvidenceRecord, caseRecords: [EvidenceRecord]) -> Int64? {
        if let modelled = record.modelledWallTimeMs { return modelled }
        guard let now = record.storeTime,
              let before = caseRecords.last(where: { $0.step < record.step && $0.storeTime != nil })?.storeTime else { return nil }
        // Hand-edited evidence may hold any two numbers.
        let (wait, overflow) = now.subtractingReportingOverflow(before)
        return overflow ? nil : wait
    }
}
