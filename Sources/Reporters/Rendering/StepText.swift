import Foundation
import MatrixJSON
import MatrixModel

/// One expected field of a step beside what was observed, for reports.
public struct FieldComparison: Sendable, Hashable {
    /// The expectation field: `access`, `result`, `subscriptionStatus`, `transaction`, …
    public var field: String
    /// The expected value as text, e.g. `["pro"]`.
    public var expected: String
    /// What was observed for the same field, or `not observed`.
    public var observed: String
    /// Whether the judge found a difference in this field.
    public var differs: Bool
    /// Whether the environment could not observe the field (``Observation/notObserved``), or observed nothing.
    public var unobserved = false
}

/// Words and numbers the reports share: step descriptions, expected-versus-observed rows, times.
public enum StepText {
    /// The run's name in report titles: the matrix's name, and the shard when the run is one of a sharded
    /// run's slices (`release (shard 2/3)`), since the slices' reports often land side by side in one CI job.
    public static func runName(_ manifest: RunManifest) -> String {
        manifest.matrix.name + (manifest.shard.map { " (shard \($0))" } ?? "")
    }

    /// The shard row of a report's metadata, when the run is a shard.
    static func shard(_ manifest: RunManifest) -> String? {
        manifest.shard.map { "\($0): \(manifest.shardCases?.count ?? 0) of the matrix's cases (`matrix merge` joins the slices)" }
    }

    /// The selection row of a report's metadata, when the run took some of the matrix's cases
    /// (`--case`, `--kind`, `--tag`, `--profile`).
    static func selection(_ manifest: RunManifest) -> String? {
        manifest.selection.map { "\($0.summary): \(manifest.selectedCases?.count ?? 0) cases; the matrix's other cases were not run" }
    }

    /// The app fault row of a report's metadata: `pendingUnlocks (the reference app ran with this known bug)`, or
    /// several, comma-separated as run.json names them.
    static func appFault(_ names: String) -> String {
        let faults = names.split(separator: ",")
        return faults.joined(separator: ", ") + (faults.count > 1 ? " (the reference app ran with these known bugs)"
                                                                  : " (the reference app ran with this known bug)")
    }

    /// The environment as a report's metadata shows it: its name, and for the embedded environments what a
    /// pass there shows.
    public static func environment(_ name: String) -> String {
        guard EnvironmentKind(name).isEmbeddedReference else { return name }
        return "\(name) (the embedded App Store simulator and reference app: a pass shows the matrix agrees with StoreKit's "
            + "rules, not that your build does; run your build with --env exec, sandbox or testflight)"
    }

    /// The clock as a report's metadata shows it: `real` is Apple's production schedule, modelled on the
    /// simulator's virtual clock for the embedded environments.
    public static func clock(_ clock: String, environment: String) -> String {
        guard clock == "real" else { return clock }
        return EnvironmentKind(environment).isEmbeddedReference
            ? "real (Apple's production renewal schedule, on the simulator's virtual clock)" : "real (Apple's production renewal schedule)"
    }

    /// How much of the run the environment performed, for the reports' counts: `every step performed`, or
    /// `12 of 40 steps performed (30 %), 28 skipped — skipped steps test nothing`.
    public static func exercised(_ steps: VerdictCounts) -> String {
        var text = steps.exercised
        if steps.skipped > 0 { text += " — skipped steps test nothing" }
        return text
    }

    /// The text for a missing observation.
    public static let notObserved = "not observed"

    /// A verdict as upper-case text: `PASS`, `FAIL`, `ERROR`, `SKIPPED`, `BLOCKED`.
    public static func label(_ verdict: Verdict) -> String {
        verdict.rawValue.uppercased()
    }

    /// The step in a few words: `purchase com.example.pro (outcome pending)`, `advanceTime (by P1M)`.
    public static func describe(_ step: Step) -> String {
        var parameters: [String] = []
        if let outcome = step.outcome { parameters.append("outcome \(outcome.rawValue)") }
        if let quantity = step.quantity { parameters.append("quantity \(quantity)") }
        if let offer = step.offer { parameters.append("offer \(offer)") }
        if let count = step.count { parameters.append("count \(count)") }
        if let by = step.by { parameters.append("by \(by)") }
        if let to = step.to { parameters.append("to \(to.rawValue)") }
        if let account = step.account { parameters.append("account \(account)") }
        if let device = step.device { parameters.append("device \(device)") }
        if let terminate = step.terminate { parameters.append("terminate \(terminate.rawValue)") }
        if let gracePeriod = step.gracePeriod { parameters.append("gracePeriod \(gracePeriod)") }
        if let reason = step.reason { parameters.append("reason \(reason)") }
        var text = step.action.rawValue
        if let product = step.product { text += " " + product }
        if !parameters.isEmpty { text += " (" + parameters.joined(separator: ", ") + ")" }
        return text
    }

    /// Every field the step expected, with the observed value of the same field, in expectation order.
    public static func comparisons(_ record: EvidenceRecord) -> [FieldComparison] {
        guard let expected = record.expected else { return [] }
        let observed = record.observed
        let differing: [String]
        if let observed {
            differing = Judge.differences(expected, observed, stepProduct: record.product,
                                          schedule: Judge.schedule(record.clock, timeRate: nil)) { product in
                observed.renewalInfo.first { $0.value.productId == product || $0.value.autoRenewProductId == product }?.key
            }.map(\.field)
        } else {
            differing = []
        }
        var rows: [FieldComparison] = []
        // What the environment could not observe (a guided run's tester sees access and results only) reads "not
        // observed", never the empty value the observation holds in its place.
        let unobserved = Set(observed?.notObserved ?? [])
        func add(_ field: String, _ expectedText: String, _ observedText: (Observation) -> String) {
            let differs = differing.contains { $0 == field || $0.hasPrefix(field + ".") || $0.hasPrefix(field + "[") }
            let missing = observed == nil || unobserved.contains(field)
            rows.append(FieldComparison(field: field, expected: expectedText, observed: missing ? notObserved : observed.map(observedText) ?? notObserved,
                                        differs: differs, unobserved: missing))
        }
        if let access = expected.access {
            add("access", Judge.render(access.sorted())) { Judge.render($0.access.sorted()) }
        }
        if let entitlements = expected.entitlements {
            add("entitlements", Judge.render(entitlements.sorted())) { Judge.render($0.entitlements.sorted()) }
        }
        if let result = expected.result {
            add("result", result) { $0.result ?? "none" }
        }
        if let status = expected.subscriptionStatus {
            let groups = status.keys.sorted()
            add("subscriptionStatus", pairs(groups.map { ($0, status[$0] ?? "") })) { o in
                pairs(groups.map { ($0, o.subscriptionStatus[$0] ?? "none") })
            }
        }
        if let balance = expected.balance {
            let names = balance.keys.sorted()
            add("balance", pairs(names.map { ($0, String(balance[$0] ?? 0)) })) { o in
                pairs(names.map { ($0, String(o.balance[$0] ?? 0)) })
            }
        }
        if let notifications = expected.notifications {
            add("notifications", Judge.render(notifications)) { Judge.render($0.notifications) }
        }
        if let renewals = expected.renewals {
            add("renewals", String(renewals)) { String($0.renewals) }
        }
        if let prices = expected.displayPrice {
            let products = prices.keys.sorted()
            add("displayPrice", pairs(products.map { ($0, prices[$0] ?? "") })) { o in
                pairs(products.map { ($0, o.displayPrice[$0] ?? "none") })
            }
        }
        if let offers = expected.introductoryOffer {
            let products = offers.keys.sorted()
            add("introductoryOffer", pairs(products.map { ($0, offers[$0] ?? "") })) { o in
                pairs(products.map { ($0, o.introductoryOffer[$0] ?? "unknown") })
            }
        }
        if let sends = expected.serverNotifications {
            add("serverNotifications", String(sends)) { $0.serverNotifications.map { String($0) } ?? "unknown" }
        }
        if let transaction = expected.transaction {
            let product = transaction.product ?? record.product ?? ""
            add("transaction", transactionText(product, transaction, nil)) { o in
                guard let found = o.transactions.last(where: { $0.productId == product }) else { return "none" }
                return transactionText(product, transaction, found)
            }
        }
        if let renewalInfo = expected.renewalInfo {
            add("renewalInfo", renewalText(renewalInfo, nil)) { o in
                let entry = renewalInfo.group.flatMap { group in o.renewalInfo[group] }
                    ?? o.renewalInfo.first { $0.value.productId == record.product || $0.value.autoRenewProductId == record.product }?.value
                guard let entry else { return "none" }
                return renewalText(renewalInfo, entry)
            }
        }
        return rows
    }

    /// Wall-clock milliseconds between a record's start and end, when both parse.
    public static func wallMilliseconds(_ record: EvidenceRecord) -> Int64? {
        guard let start = Timestamp.milliseconds(record.wallStart), let end = Timestamp.milliseconds(record.wallEnd) else { return nil }
        return max(0, end - start)
    }

    /// `a + b`, or `Int64.max` when that overflows: wall times come from evidence files, which may hold any
    /// date a hand or another tool wrote.
    public static func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b < 0 ? .min : .max) : sum
    }

    /// Milliseconds as seconds with three decimals: `1.250`.
    public static func seconds(_ milliseconds: Int64) -> String {
        let whole = milliseconds / 1000
        let fraction = String(milliseconds % 1000)
        return "\(whole)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    /// A record's store time: `record.storeTime`, else `observed.storeTime`; ms since 1970.
    public static func storeTime(_ record: EvidenceRecord) -> Int64? {
        record.storeTime ?? record.observed?.storeTime
    }

    /// A store time (ms since 1970) as ISO 8601, UTC.
    public static func storeTimeText(_ milliseconds: Int64?) -> String {
        milliseconds.map { Timestamp.iso8601(milliseconds: $0) } ?? "—"
    }

    /// The interval from `start` to `end` as ``elapsed(_:)`` writes it; an interval too long for Int64 (store
    /// times read from a damaged file) is written as the longest one.
    public static func elapsed(from start: Int64, to end: Int64) -> String {
        let (difference, overflow) = end.subtractingReportingOverflow(start)
        return elapsed(overflow ? (end > start ? .max : 0) : difference)
    }

    /// A store-time interval in days, hours, minutes and seconds: `+31d 2h`, `+45s`, `+0`.
    public static func elapsed(_ milliseconds: Int64) -> String {
        var rest = max(0, milliseconds) / 1000
        let days = rest / 86_400
        rest %= 86_400
        let hours = rest / 3600
        rest %= 3600
        let minutes = rest / 60
        let seconds = rest % 60
        let parts = [(days, "d"), (hours, "h"), (minutes, "m"), (seconds, "s")].filter { $0.0 > 0 }.prefix(2)
        return parts.isEmpty ? "+0" : "+" + parts.map { "\($0.0)\($0.1)" }.joined(separator: " ")
    }

    private static func pairs(_ values: [(String, String)]) -> String {
        values.map { "\($0.0): \($0.1)" }.joined(separator: ", ")
    }

    private static func transactionText(_ product: String, _ e: TransactionExpectation, _ o: ObservedTransaction?) -> String {
        var parts: [(String, String)] = []
        if e.inAppOwnershipType != nil { parts.append(("inAppOwnershipType", o?.inAppOwnershipType ?? e.inAppOwnershipType ?? "")) }
        if let v = e.isUpgraded { parts.append(("isUpgraded", String(o?.isUpgraded ?? v))) }
        if let v = e.revoked { parts.append(("revoked", String(o.map { $0.revocationDate != nil } ?? v))) }
        if let v = e.revocationReason { parts.append(("revocationReason", o.map { $0.revocationReason.map(String.init) ?? "none" } ?? String(v))) }
        if let v = e.transactionReason { parts.append(("transactionReason", o.map { $0.transactionReason ?? "none" } ?? v)) }
        if let v = e.offerType { parts.append(("offerType", o.map { $0.offerType.map(String.init) ?? "none" } ?? String(v))) }
        if let v = e.price { parts.append(("price", o.map { $0.price.map(String.init) ?? "none" } ?? String(v))) }
        if let v = e.currency { parts.append(("currency", o.map { $0.currency ?? "none" } ?? v)) }
        if let v = e.expiresAfter {
            parts.append(("expiresAfter", o.map { t in t.expiresDate.map { RenewalSchedule.label(milliseconds: $0 - t.purchaseDate) } ?? "none" } ?? v.description))
        }
        return product + (parts.isEmpty ? "" : " " + pairs(parts))
    }

    private static func renewalText(_ e: RenewalInfoExpectation, _ o: ObservedRenewalInfo?) -> String {
        var parts: [(String, String)] = []
        if let v = e.autoRenewStatus { parts.append(("autoRenewStatus", String(o?.autoRenewStatus ?? v))) }
        if let v = e.autoRenewProductId { parts.append(("autoRenewProductId", o?.autoRenewProductId ?? v)) }
        if let v = e.expirationIntent { parts.append(("expirationIntent", o.map { $0.expirationIntent.map(String.init) ?? "none" } ?? String(v))) }
        if let v = e.isInBillingRetryPeriod { parts.append(("isInBillingRetryPeriod", String(o?.isInBillingRetryPeriod ?? v))) }
        let text = pairs(parts)
        guard let group = e.group else { return text }
        return text.isEmpty ? group : group + " " + text
    }
}
