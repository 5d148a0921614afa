import Foundation
import MatrixEngine
import MatrixModel
import MatrixPlanning

/// One case guided step by step: instructions, waits for accelerated renewals, and the tester's observation.
final class GuidedSession: CaseSession {
    let adapter: GuidedAdapter
    let matrix: Matrix
    let matrixCase: MatrixCase
    /// Renewals waited for so far per product, and when each subscription's current period started (wall ms).
    var renewals: [String: Int] = [:]
    var periodStart: [String: Int64] = [:]
    /// The waits a replay recorded without sleeping them, ms: the run's clock (``now()``) is that far ahead of
    /// the wall clock, as the Sandbox store's would be.
    var unslept: Int64 = 0
    /// A transaction id of each account, learned from the server, to limit later look-ups to that customer.
    var anchors: [String: String] = [:]

    init(adapter: GuidedAdapter, matrix: Matrix, matrixCase: MatrixCase) {
        self.adapter = adapter
        self.matrix = matrix
        self.matrixCase = matrixCase
    }

    func close() async {}

    /// What a person can see in the app: access and the result it reports. The rest is not judged here.
    static let observable: Set<String> = ["access", "result"]
    static let unobservable = ["entitlements", "subscriptionStatus", "balance", "notifications", "renewals", "transaction",
                               "renewalInfo", "eligibleForIntroOffer", "displayPrice", "introductoryOffer", "serverNotifications"]

    func perform(_ step: Step, index: Int) async throws -> StepOutcome {
        if let skip = GuidedLimits.clockSkip(matrix.storeSettings(for: matrixCase).clock, environment: adapter.environment) {
            return .skipped(reason: skip.reason, limit: skip.limit)
        }
        if let skip = environmentLimit(step) {
            return .skipped(reason: skip.reason, limit: skip.limit)
        }
        let alias = step.account ?? matrixCase.account
        if index == 0 { await adapter.prompter.show(setupText()) }
        let stepStart = Self.nowMs()
        await adapter.prompter.show(Instructions.text(for: step, index: index, case: matrixCase, matrix: matrix, adapter: adapter,
                                                      account: alias, appleAccount: adapter.accounts[alias]))
        let waited = try await waitIfNeeded(step)
        let results: [String]? = switch step.action {
        case .purchase: Expectation.purchaseResults
        case .restore: Expectation.restoreResults
        default: nil
        }
        let answer = try await adapter.prompter.answer(AnswerRequest(
            caseID: matrixCase.id, step: index, action: step.action, tiers: matrix.tiers.map(\.name), results: results,
            asksTransactionId: step.action == .purchase || step.action == .approveAskToBuy || step.action == .purchaseOutsideApp))
        if let reason = answer.skip {
            return .skipped(reason: "the tester skipped it: \(reason)")
        }
        if step.action == .purchase, answer.result == "success", let product = step.product, periodStart[product] == nil {
            periodStart[product] = now()
        }
        var observation = Observation(access: (answer.access ?? []).sorted(), result: answer.result,
                                      transactionIds: answer.transactionId.map { [$0] } ?? [], message: answer.note,
                                      storeTime: now())
        observation.notObserved = Self.unobservable
        if let check = adapter.serverCheck {
            let now = Self.nowMs()
            let findings = try await check.findings(window: stepStart...now, anchorTransactionId: anchors[alias],
                                                    reportedTransactionId: answer.transactionId, matrix: matrix, now: now)
            merge(findings, into: &observation, alias: alias)
        }
        return .observed(observation, modelledWallTimeMs: waited)
    }

    /// Adds what the server says to the tester's observation, and any disagreement between the two.
    func merge(_ findings: ServerFindings, into observation: inout Observation, alias: String) {
        if let anchor = findings.anchorTransactionId { anchors[alias] = anchor }
        var notObserved = Set(observation.notObserved ?? [])
        observation.notifications = findings.notifications
        observation.signedData = findings.signedItems
        observation.transactions = findings.transactions.compactMap(ObservedTransaction.init(payload:))
        observation.transactionIds = Array(Set(observation.transactionIds + findings.transactions.compactMap(\.transactionId))).sorted()
        notObserved.subtract(["notifications", "transaction"])
        if let statuses = findings.subscriptionStatus {
            observation.subscriptionStatus = Dictionary(statuses.map { (matrix.catalog.group($0.key)?.name ?? $0.key, $0.value) },
                                                        uniquingKeysWith: { first, _ in first })
            notObserved.remove("subscriptionStatus")
        }
        if let entitled = findings.entitledProducts {
            observation.entitlements = entitled.sorted()
            notObserved.remove("entitlements")
            let serverAccess = matrix.access(for: entitled).sorted()
            if serverAccess != observation.access {
                observation.conflicts = ["the tester saw \(Judge.render(observation.access)); the App Store Server API's transactions grant \(Judge.render(serverAccess))"]
            }
        }
        observation.notObserved = Self.unobservable.filter { notObserved.contains($0) }
    }

    static func nowMs() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// The run's clock, ms since 1970: the wall clock plus the waits a replay did not sleep.
    func now() -> Int64 { Self.nowMs() + unslept }

    /// The case's starting state, as `matrix plan` states it (``CaseSetup``), shown before its first step.
    func setupText() -> String {
        var renewals: [String: Int] = [:]
        let performed = matrixCase.steps.map { step in
            defer { if step.action == .renew { renewals[step.product ?? "", default: 0] += step.count ?? 1 } }
            return GuidedLimits.reason(for: step, environment: adapter.environment, schedule: adapter.schedule,
                                       renewalsSoFar: renewals[step.product ?? ""] ?? 0) == nil
        }
        let setup = CaseSetup(matrix: matrix, matrixCase: matrixCase, environment: adapter.environment, schedule: adapter.schedule, performed: performed)
        return "[\(matrixCase.id)] before the first step:\n" + setup.setup.map { "  - \($0)" }.joined(separator: "\n")
            + (setup.teardown.isEmpty ? "" : "\n  after the case: " + setup.teardown.joined(separator: "; "))
    }

    /// Why the environment cannot do a step, if it cannot (``GuidedLimits``).
    func environmentLimit(_ step: Step) -> GuidedLimits.Skip? {
        GuidedLimits.skip(for: step, environment: adapter.environment, schedule: adapter.schedule,
                          renewalsSoFar: renewals[step.product ?? ""] ?? 0)
    }

    /// Waits for renewals and time steps, as long as they take in the environment; returns the wait in ms.
    func waitIfNeeded(_ step: Step) async throws -> Int64? {
        let schedule = adapter.schedule
        switch step.action {
        case .renew:
            guard let product = step.product, let period = matrix.catalog.product(product)?.recurringSubscriptionPeriod else { return nil }
            let count = step.count ?? 1
            let milliseconds = schedule.wallTime(of: period, from: 0) * Int64(count)
            try await adapter.prompter.wait(milliseconds: milliseconds, label: "\(count) renewal\(count == 1 ? "" : "s") (\(RenewalSchedule.label(milliseconds: milliseconds)))")
            if !adapter.prompter.sleepsWaits { unslept += milliseconds }
            renewals[product, default: 0] += count
            return milliseconds
        case .advanceTime:
            var milliseconds: Int64
            if let by = step.by {
                milliseconds = by.added(to: 0)
            } else if let product = step.product, let period = matrix.catalog.product(product)?.recurringSubscriptionPeriod,
                      let start = periodStart[product] {
                let periods = Int64((renewals[product] ?? 0) + 1)
                let end = start + schedule.wallTime(of: period, from: 0) * periods
                milliseconds = max(0, end - now())
                if step.to == .gracePeriodEnd {
                    let days = matrix.storeSettings(for: matrixCase).gracePeriodDays ?? 16
                    milliseconds += schedule.gracePeriod(days: days, for: period)
                }
                if step.to == .billingRetryEnd { milliseconds += schedule.billingRetryPeriod(for: period) }
            } else {
                return nil
            }
            try await adapter.prompter.wait(milliseconds: milliseconds, label: RenewalSchedule.label(milliseconds: milliseconds))
            if !adapter.prompter.sleepsWaits { unslept += milliseconds }
            return milliseconds
        default:
            return nil
        }
    }
}
