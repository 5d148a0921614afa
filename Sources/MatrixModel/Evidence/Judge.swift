import MatrixJSON

/// Compares an expectation with an observation.
public enum Judge {
    /// One field that differs.
    public struct Difference: Sendable, Hashable, Codable {
        /// The expectation field, e.g. `access` or `subscriptionStatus.Pro`.
        public var field: String
        public var expected: String
        public var observed: String

        public var sentence: String {
            field == "conflict" ? "observers disagree: \(observed)" : "\(field): expected \(expected), observed \(observed)"
        }
    }

    /// Every field of `step`'s expectation whose observed value differs, with the matrix's catalog naming each
    /// product's subscription group. Without an expectation only disagreements between observers can differ.
    /// `clock` is the clock the step ran on (its text form, as evidence records it), for durations such as
    /// `transaction.expiresAfter`; `real` when not given or not a clock.
    public static func differences(_ step: Step, _ observation: Observation, in matrix: Matrix, clock: String? = nil) -> [Difference] {
        differences(step.expect ?? Expectation(), observation, stepProduct: step.product,
                    schedule: schedule(clock, timeRate: matrix.catalog.settings.timeRate)) { productID in
            matrix.catalog.product(productID)?.subscriptionGroupID.flatMap { matrix.catalog.group($0)?.name }
        }
    }

    /// The schedule a recorded clock names; `real` for none or text that is not a clock.
    public static func schedule(_ clock: String?, timeRate: Int?) -> RenewalSchedule {
        // Most runs record the real clock: no need to parse it for every step judged.
        guard let clock, clock != "real", case .success(let schedule) = RenewalSchedule.parse(clock, storeKitTimeRate: timeRate) else { return .real }
        return schedule
    }

    /// Every field of `expectation` whose observed value differs.
    ///
    /// Sets (access, entitlements, notifications) compare without regard to order; notifications compare as
    /// multisets. `stepProduct` is the product a transaction or renewal-info expectation defaults to, and
    /// `groupOf` maps a product to its subscription group's name.
    public static func differences(_ expectation: Expectation, _ observation: Observation, stepProduct: String?,
                                   schedule: RenewalSchedule = .real, groupOf: (String) -> String?) -> [Difference] {
        var diffs: [Difference] = []
        // The texts of a field are made only when it differs: most fields of most steps agree.
        func check(_ field: @autoclosure () -> String, _ expected: @autoclosure () -> String, _ observed: @autoclosure () -> String,
                   _ equal: Bool) {
            guard !equal else { return }
            let field = field()
            let top = field.prefix { $0 != "." && $0 != "[" }
            if observation.notObserved?.contains(where: { $0[...] == top }) != true {
                diffs.append(Difference(field: field, expected: expected(), observed: observed()))
            }
        }
        if let access = expectation.access {
            check("access", render(access.sorted()), render(observation.access.sorted()), Set(access) == Set(observation.access))
        }
        if let entitlements = expectation.entitlements {
            check("entitlements", render(entitlements.sorted()), render(observation.entitlements.sorted()),
                  Set(entitlements) == Set(observation.entitlements))
        }
        if let result = expectation.result {
            check("result", result, observation.result ?? "none", result == observation.result)
        }
        for (group, state) in (expectation.subscriptionStatus ?? [:]).sorted(by: { $0.key < $1.key }) {
            let observed = observation.subscriptionStatus[group] ?? "none"
            check("subscriptionStatus.\(group)", state, observed, state == observed)
        }
        for (name, amount) in (expectation.balance ?? [:]).sorted(by: { $0.key < $1.key }) {
            let observed = observation.balance[name] ?? 0
            check("balance.\(name)", String(amount), String(observed), amount == observed)
        }
        if let notifications = expectation.notifications {
            check("notifications", render(notifications), render(observation.notifications),
                  notifications.sorted() == observation.notifications.sorted())
        }
        for (group, eligible) in (expectation.eligibleForIntroOffer ?? [:]).sorted(by: { $0.key < $1.key }) {
            let observed = observation.eligibleForIntroOffer[group]
            check("eligibleForIntroOffer.\(group)", String(eligible), observed.map { String($0) } ?? "unknown", eligible == observed)
        }
        for (product, shown) in (expectation.displayPrice ?? [:]).sorted(by: { $0.key < $1.key }) {
            let observed = observation.displayPrice[product]
            check("displayPrice.\(product)", shown, observed ?? "none", shown == observed)
        }
        for (product, mode) in (expectation.introductoryOffer ?? [:]).sorted(by: { $0.key < $1.key }) {
            let observed = observation.introductoryOffer[product]
            check("introductoryOffer.\(product)", mode, observed ?? "unknown", mode == observed)
        }
        // An environment that cannot tell whether notifications are sent leaves it unobserved.
        if let sends = expectation.serverNotifications, let observed = observation.serverNotifications {
            check("serverNotifications", String(sends), String(observed), sends == observed)
        }
        if let renewals = expectation.renewals {
            check("renewals", String(renewals), String(observation.renewals), renewals == observation.renewals)
        }
        if let expected = expectation.transaction {
            let product = expected.product ?? stepProduct ?? ""
            if let observed = observation.transactions.last(where: { $0.productId == product }) {
                let prefix = "transaction[\(product)]."
                if let v = expected.inAppOwnershipType {
                    check(prefix + "inAppOwnershipType", v, observed.inAppOwnershipType, v == observed.inAppOwnershipType)
                }
                if let v = expected.isUpgraded {
                    check(prefix + "isUpgraded", String(v), String(observed.isUpgraded), v == observed.isUpgraded)
                }
                if let v = expected.revoked {
                    let isRevoked = observed.revocationDate != nil
                    check(prefix + "revoked", String(v), String(isRevoked), v == isRevoked)
                }
                if let v = expected.revocationReason {
                    check(prefix + "revocationReason", String(v), observed.revocationReason.map(String.init) ?? "none",
                          v == observed.revocationReason)
                }
                if let v = expected.transactionReason {
                    check(prefix + "transactionReason", v, observed.transactionReason ?? "none", v == observed.transactionReason)
                }
                if let v = expected.offerType {
                    check(prefix + "offerType", String(v), observed.offerType.map(String.init) ?? "none", v == observed.offerType)
                }
                if let v = expected.price {
                    check(prefix + "price", String(v), observed.price.map(String.init) ?? "none", v == observed.price)
                }
                if let v = expected.currency {
                    check(prefix + "currency", v, observed.currency ?? "none", v == observed.currency)
                }
                if let v = expected.expiresAfter {
                    let expires = schedule.periodEnd(v, from: observed.purchaseDate)
                    let actual = observed.expiresDate.map { Self.after($0 - observed.purchaseDate) } ?? "no expiresDate"
                    check(prefix + "expiresAfter", "\(v) (\(Self.after(expires - observed.purchaseDate)) on clock \(schedule))", actual,
                          observed.expiresDate == expires)
                }
            } else {
                check("transaction[\(product)]", "a transaction", "none", false)
            }
        }
        if let expected = expectation.renewalInfo {
            let group = expected.group ?? stepProduct.flatMap(groupOf) ?? ""
            if let observed = observation.renewalInfo[group] {
                let prefix = "renewalInfo[\(group)]."
                if let v = expected.autoRenewStatus {
                    check(prefix + "autoRenewStatus", String(v), String(observed.autoRenewStatus), v == observed.autoRenewStatus)
                }
                if let v = expected.autoRenewProductId {
                    check(prefix + "autoRenewProductId", v, observed.autoRenewProductId, v == observed.autoRenewProductId)
                }
                if let v = expected.expirationIntent {
                    check(prefix + "expirationIntent", String(v), observed.expirationIntent.map(String.init) ?? "none",
                          v == observed.expirationIntent)
                }
                if let v = expected.isInBillingRetryPeriod {
                    check(prefix + "isInBillingRetryPeriod", String(v), String(observed.isInBillingRetryPeriod),
                          v == observed.isInBillingRetryPeriod)
                }
            } else {
                check("renewalInfo[\(group)]", "renewal info", "none", false)
            }
        }
        for conflict in observation.conflicts ?? [] {
            diffs.append(Difference(field: "conflict", expected: "agreement", observed: conflict))
        }
        return diffs
    }

    /// A length of time in words for differences: `604800000 ms (7 days)`.
    static func after(_ milliseconds: Int64) -> String {
        "\(milliseconds) ms (\(RenewalSchedule.label(milliseconds: milliseconds)))"
    }

    /// A list as JSON text: `["pro", "vip"]`, `[]`; each name as ``render(name:)`` writes it.
    public static func render(_ values: [String]) -> String {
        "[" + values.map(render(name:)).joined(separator: ", ") + "]"
    }

    /// One name (a tier, a product) as every message and report shows it: a JSON string literal, so a name
    /// holding `"`, `,` or a backslash cannot read as two names, or as the end of a list. Reports escape the
    /// result again for their own markup.
    public static func render(name: String) -> String {
        JSONText.quoted(name)
    }
}
