import Foundation
@testable import FaultScoring
@testable import LocalEnvironment
import MatrixEngine
@testable import MatrixModel
@testable import ReferenceApp
@testable import TestSupport
import Testing
import Threading

/// `matrix score` credits a fault only where the reference app passes, and the faults taken from real bug reports
/// are caught by the cases that show them.
@Suite("Fault scorer")
struct FaultScorerTests {
    func matrix(_ cases: [MatrixCase], accounts: [Account] = [], catalog: StoreKitConfiguration = ExampleMatrix.catalog,
                tiers: [Tier]? = nil) -> Matrix {
        var matrix = ExampleMatrix.matrix(accounts: accounts.isEmpty ? cases.map { Account(alias: $0.account) } : accounts, cases: cases)
        matrix.catalog = catalog
        if let tiers { matrix.tiers = tiers }
        return matrix
    }

    @Test("a step the reference app fails credits no fault, and the score names the failing steps first")
    func referenceFailuresCreditNothing() async throws {
        // The expectation contradicts StoreKit: a purchase of Pro grants "pro", not nothing. Every fault "fails" there.
        let wrong = MatrixCase(id: "wrong/pro", kind: "fresh-purchase", account: "w", steps: [
            Step(action: .launch, expect: Expectation(access: [])),
            Step(action: .purchase, product: ExampleMatrix.pro, expect: Expectation(access: [])),
        ])
        let score = try await FaultScorer.score(matrix([wrong]), faults: [.ignoresPurchaseResult, .restoreReportsSuccess])
        #expect(!score.referencePasses)
        #expect(score.referenceProblems.map { "\($0.case) #\($0.step)" } == ["wrong/pro #1"])
        // Without the rule, both faults would be "caught" at wrong/pro #1; with it, neither is.
        #expect(score.results.allSatisfy { $0.applicable && $0.caughtBy == nil }, "\(score.results)")
        #expect(score.caught == 0 && score.percent == 0)
        // A right step next to it still credits a fault it catches.
        let right = MatrixCase(id: "right/pro", kind: "fresh-purchase", account: "r", steps: [
            Step(action: .launch, expect: Expectation(access: [])),
            Step(action: .purchase, product: ExampleMatrix.pro, expect: Expectation(access: ["pro"])),
        ])
        let mixed = try await FaultScorer.score(matrix([wrong, right]), faults: [.ignoresPurchaseResult])
        #expect(mixed.results.first?.caughtBy == "right/pro #1 purchase")
    }

    /// A purchase of Pro, then its refund, which must take the access away.
    static let refund = MatrixCase(id: "refund/pro", kind: "refund", account: "a", steps: [
        Step(action: .launch),
        Step(action: .purchase, product: ExampleMatrix.pro, expect: Expectation(access: ["pro"])),
        Step(action: .refund, product: ExampleMatrix.pro, expect: Expectation(access: [])),
    ])

    // Source: https://github.com/qonversion/qonversion-ios-sdk/pull/739
    @Test("revocationLeftToServer: a refund leaves a non-consumable granted, since the app never reads revocationDate")
    func revocationLeftToServer() async throws {
        let refund = Self.refund
        let problem = try await FaultScorer.firstProblem(matrix([refund]), fault: .revocationLeftToServer)
        #expect(problem.map { "\($0.case) #\($0.step)" } == "refund/pro #2" && problem?.reason?.contains(#"observed ["pro"]"#) == true)
        #expect(try await FaultScorer.firstProblem(matrix([refund]), fault: nil) == nil)
    }

    // Source: https://github.com/superwall/Superwall-iOS/pull/518
    @Test("tierFromNewestTransaction: one tier over two groups is dropped when one group's newest transaction is refunded")
    func tierFromNewestTransaction() async throws {
        var catalog = ExampleMatrix.catalog
        catalog.products.append(CatalogProduct(productID: "com.example.storekitmatrix.addon.yearly", type: .autoRenewable, displayPrice: "9.99",
                                               subscriptionGroupID: "g2", groupNumber: 1, recurringSubscriptionPeriod: ISO8601Duration(years: 1)))
        catalog.subscriptionGroups.append(SubscriptionGroup(id: "g2", name: "Add-on", productIDs: ["com.example.storekitmatrix.addon.yearly"]))
        let tiers = [Tier(name: "pro", productIDs: [ExampleMatrix.pro]), Tier(name: "premium", productIDs: [ExampleMatrix.yearly, "com.example.storekitmatrix.addon.yearly"])]
        let both = MatrixCase(id: "refund/one-group", kind: "refund", account: "a", steps: [
            Step(action: .launch),
            Step(action: .purchase, product: ExampleMatrix.yearly, expect: Expectation(access: ["premium"])),
            Step(action: .purchase, product: "com.example.storekitmatrix.addon.yearly", expect: Expectation(access: ["premium"])),
            Step(action: .refund, product: "com.example.storekitmatrix.addon.yearly", expect: Expectation(access: ["premium"])),
        ])
        let twoGroups = matrix([both], catalog: catalog, tiers: tiers)
        #expect(AppFault.tierFromNewestTransaction.isApplicable(to: twoGroups))
        #expect(!AppFault.tierFromNewestTransaction.isApplicable(to: ExampleMatrix.matrix()))
        #expect(try await FaultScorer.firstProblem(twoGroups, fault: nil) == nil)
        let problem = try await FaultScorer.firstProblem(twoGroups, fault: .tierFromNewestTransaction)
        #expect(problem.map { "\($0.case) #\($0.step)" } == "refund/one-group #3")
    }

    // Source: https://github.com/RevenueCat/purchases-ios/pull/3028
    @Test("deferredChangeTreatedAsFailure: a downgrade, which returns the current product's transaction, is shown as failed")
    func deferredChange() async throws {
        let downgrade = MatrixCase(id: "downgrade/premium-to-plus", kind: "downgrade", account: "a", steps: [
            Step(action: .launch),
            Step(action: .purchase, product: ExampleMatrix.yearly, expect: Expectation(result: "success")),
            Step(action: .purchase, product: ExampleMatrix.monthly, expect: Expectation(access: ["premium"], result: "success")),
        ])
        let problem = try await FaultScorer.firstProblem(matrix([downgrade]), fault: .deferredChangeTreatedAsFailure)
        #expect(problem.map { "\($0.case) #\($0.step)" } == "downgrade/premium-to-plus #2")
        #expect(problem?.reason?.contains("result: expected success, observed failed") == true)
    }

    // Source: https://github.com/PatrickDavy/SightScreen/issues/37
    @Test("hardCodedPrice: the price written into the app is wrong in another storefront and after a price increase")
    func hardCodedPrice() async throws {
        let gbr = MatrixCase(id: "fresh-purchase/pro-in-gbr", kind: "fresh-purchase", account: "a", store: StoreSettings(storefront: "GBR"), steps: [
            Step(action: .launch, expect: Expectation(displayPrice: [ExampleMatrix.pro: "£9.99"])),
        ])
        let raised = MatrixCase(id: "price-increase/yearly", kind: "price-increase", account: "b", steps: [
            Step(action: .launch, expect: Expectation(displayPrice: [ExampleMatrix.yearly: "$39.99"])),
            Step(action: .purchase, product: ExampleMatrix.yearly),
            Step(action: .requestPriceIncrease, product: ExampleMatrix.yearly, price: "49.99",
                 expect: Expectation(displayPrice: [ExampleMatrix.yearly: "$49.99"])),
        ])
        let both = matrix([gbr, raised])
        #expect(try await FaultScorer.firstProblem(both, fault: nil) == nil)
        let inGBR = try await FaultScorer.firstProblem(matrix([gbr]), fault: .hardCodedPrice)
        #expect(inGBR?.reason == "displayPrice.\(ExampleMatrix.pro): expected £9.99, observed $9.99")
        let afterIncrease = try await FaultScorer.firstProblem(matrix([raised]), fault: .hardCodedPrice)
        #expect(afterIncrease.map { "\($0.case) #\($0.step)" } == "price-increase/yearly #2")
    }

    /// Counts the cases an environment is asked to start.
    final class CountingAdapter: EnvironmentAdapter {
        let inner: any EnvironmentAdapter
        let started = Locked(0)
        init(_ inner: any EnvironmentAdapter) { self.inner = inner }
        var description: EnvironmentDescription { inner.description }
        func startCase(_ matrixCase: MatrixCase, of matrix: Matrix) async throws -> any CaseSession {
            started.withLock { $0 += 1 }
            return try await inner.startCase(matrixCase, of: matrix)
        }
    }

    @Test("a fault's run stops at the first step that catches it: later cases are not run")
    func faultRunStopsAtFirstCatch() async throws {
        let refund = Self.refund
        let later = (0..<6).map { index in
            MatrixCase(id: "fresh-purchase/pro-\(index)", kind: "fresh-purchase", account: "b\(index)", steps: [
                Step(action: .launch, expect: Expectation(access: [])),
                Step(action: .purchase, product: ExampleMatrix.pro, expect: Expectation(access: ["pro"])),
            ])
        }
        let all = matrix([refund] + later)
        let counting = Locked<[CountingAdapter]>([])
        let maker: FaultScorer.AdapterMaker = { fault in
            let adapter = CountingAdapter(try LocalAdapter(signing: false, app: .reference(faults: fault.map { [$0] } ?? [])))
            counting.withLock { $0.append(adapter) }
            return adapter
        }
        let score = try await FaultScorer.score(all, faults: [.revocationLeftToServer], adapter: maker)
        #expect(score.results.first?.caughtBy == "refund/pro #2 refund")
        let started = counting.withLock { $0.map { $0.started.withLock { $0 } } }
        // The reference run starts all seven cases; the fault's run stops in the first.
        #expect(started == [7, 1])
    }
}
