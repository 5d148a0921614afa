import MatrixModel
import Testing
@testable import FaultScoring
@testable import LocalEnvironment
@testable import ReferenceApp
@testable import TestSupport

/// `matrix score` reads the matrix's tiers: a fault the tiers cannot show is not applicable, with the reason, and
/// a missed fault names the case that would catch it.
@Suite("Fault scoring over tier models")
struct FaultScorerTierTests {
    typealias E = ExampleMatrix

    /// The example matrix with its subscription levels granting `monthly` and `yearly` tiers, and `cases`.
    static func matrix(monthly: [String], yearly: [String], cases: [MatrixCase]) -> Matrix {
        var matrix = E.matrix(cases: cases)
        var tiers = [Tier(name: "pro", productIDs: [E.pro]), Tier(name: "season", productIDs: [E.season]), Tier(name: "week", productIDs: [E.weekPass])]
        for name in Set(monthly + yearly).sorted() {
            tiers.append(Tier(name: name, productIDs: (monthly.contains(name) ? [E.monthly] : []) + (yearly.contains(name) ? [E.yearly] : [])))
        }
        matrix.tiers = tiers
        return matrix
    }

    /// Buys the monthly plan, then upgrades to the yearly one, expecting `access` after the upgrade.
    static func upgrade(expecting access: [String]) -> MatrixCase {
        MatrixCase(id: "upgrade/monthly-to-yearly", kind: "upgrade", account: "a", steps: [
            Step(action: .launch, expect: Expectation(access: [])),
            Step(action: .purchase, product: E.monthly, expect: Expectation(access: access.count == 1 ? access : ["member"])),
            Step(action: .purchase, product: E.yearly, expect: Expectation(access: access)),
        ])
    }

    @Test("keepsUpgradedProduct is not applicable when the level upgraded from grants nothing the level above lacks")
    func sameTier() {
        let same = Self.matrix(monthly: ["member"], yearly: ["member"], cases: [])
        let reason = AppFault.keepsUpgradedProduct.notApplicableReason(in: same)
        #expect(reason?.hasPrefix(#"every upgrade in group "Membership" ("member") keeps the tiers the old product granted"#) == true, "\(reason ?? "nil")")
        let within = Self.matrix(monthly: ["member"], yearly: ["member", "extra"], cases: [])
        #expect(AppFault.keepsUpgradedProduct.notApplicableReason(in: within) != nil, "the yearly plan grants everything the monthly one does")
        let distinct = Self.matrix(monthly: ["plus"], yearly: ["premium"], cases: [])
        #expect(AppFault.keepsUpgradedProduct.notApplicableReason(in: distinct) == nil)
        #expect(AppFault.deniesGracePeriod.notApplicableReason(in: same) == nil, "other faults do not depend on the levels' tiers")
    }

    @Test("the rule is honest: with one tier for both levels the fault passes an upgrade case; with two it is caught")
    func honest() async throws {
        let same = Self.matrix(monthly: ["member"], yearly: ["member"], cases: [Self.upgrade(expecting: ["member"])])
        let hidden = try await HeavyWork.run { try await FaultScorer.firstProblem(same, fault: .keepsUpgradedProduct) }
        #expect(hidden == nil, "\(hidden.map { "\($0.case) #\($0.step): \($0.reason ?? "")" } ?? "")")
        var distinct = Self.matrix(monthly: ["plus"], yearly: ["premium"], cases: [])
        distinct.cases = [MatrixCase(id: "upgrade/monthly-to-yearly", kind: "upgrade", account: "a", steps: [
            Step(action: .launch, expect: Expectation(access: [])),
            Step(action: .purchase, product: E.monthly, expect: Expectation(access: ["plus"])),
            Step(action: .purchase, product: E.yearly, expect: Expectation(access: ["premium"])),
        ])]
        let shown = distinct
        let caught = try await HeavyWork.run { try await FaultScorer.firstProblem(shown, fault: .keepsUpgradedProduct) }
        #expect(caught?.step == 2, "the step after the upgrade: \(caught?.reason ?? "nil")")
    }

    @Test("a missed fault names the kind of case and a product no case of that kind uses yet")
    func suggestions() async throws {
        let buy = MatrixCase(id: "fresh-purchase/pro", kind: "fresh-purchase", account: "a", steps: [
            Step(action: .launch, expect: Expectation(access: [])),
            Step(action: .purchase, product: E.pro, expect: Expectation(access: ["pro"])),
        ])
        let matrix = Self.matrix(monthly: ["plus"], yearly: ["premium"], cases: [buy])
        #expect(AppFault.deniesGracePeriod.suggestedCase(in: matrix) == "a grace-period case on \(E.monthly)")
        #expect(AppFault.keepsUpgradedProduct.suggestedCase(in: matrix) == "an upgrade case on \(E.monthly)")
        #expect(AppFault.restoreReportsSuccess.suggestedCase(in: matrix) == "a restore case on \(E.pro)")
        #expect(AppFault.ignoresPurchaseResult.suggestedCase(in: matrix) == "a fresh-purchase case on \(E.monthly)", "pro has one already")
        #expect(AppFault.finishBeforeDelivery.suggestedCase(in: matrix) == "a consumable case on \(E.coins)")
        // With a case of the kind on every product it could use, the case that misses the fault is named.
        var full = matrix
        full.cases += ([E.monthly, E.yearly] as [String]).map { product in
            MatrixCase(id: "grace-period/\(product)", kind: "grace-period", account: "a",
                       steps: [Step(action: .launch), Step(action: .purchase, product: product)])
        }
        #expect(AppFault.deniesGracePeriod.suggestedCase(in: full)
                == "a step or expectation in grace-period/\(E.monthly) (the grace-period case on \(E.monthly), which misses it) that shows the fault")
        let score = try await HeavyWork.run {
            try await FaultScorer.score(matrix, faults: [.deniesGracePeriod, .keepsUpgradedProduct, .ignoresPurchaseResult])
        }
        #expect(score.results.map(\.wouldCatch) == ["a grace-period case on \(E.monthly)", "an upgrade case on \(E.monthly)", nil])
        #expect(score.results[2].caughtBy == "fresh-purchase/pro #1 purchase", "\(score.results.map { "\($0.caughtBy ?? "-") \($0.reason ?? "-")" }) \(String(describing: score.referenceProblem?.reason))")
    }
}
