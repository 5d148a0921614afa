import Foundation
import Testing
@testable import LocalEnvironment
@testable import MatrixModel
@testable import TestSupport

/// `matrix score` credits a fault only where the reference app passes.
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
}
