import Foundation
import Testing
import AppHarness
import SimulatedStoreKit

/// How the harness reads what an app does with StoreKit's answers: an error StoreKit threw that the app lets
/// through is the app's failed purchase or restore, not a broken step; a step whose precondition the app never
/// reaches, or whose expectation the app cannot answer, errors and says why.
@Suite("App harness: the app's answers")
struct AppAnswersTests {
    /// A store that lets StoreKit's errors through, grants what currentEntitlements holds, and never finishes
    /// consumables.
    final class LetsErrorsThrough: AppUnderTest, Sendable {
        func launch() async throws {}
        func quit() async {}

        func purchase(_ request: AppPurchaseRequest) async throws -> AppPurchaseReport? {
            guard let product = try await Product.products(for: [request.productID]).first else { return nil }
            if case .success(.verified(let transaction)) = try await product.purchase(options: request.options(for: product)),
               transaction.productType != .consumable {
                await transaction.finish()
            }
            return nil
        }

        func restore() async throws -> AppRestoreReport? {
            try await AppStore.sync()
            return nil
        }

        func entitledProductIDs() async -> Set<String> {
            var ids: Set<String> = []
            for await case .verified(let transaction) in Transaction.currentEntitlements { ids.insert(transaction.productID) }
            return ids
        }
    }

    static func matrix(_ steps: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("answers-\(UUID().uuidString).json")
        try Data("""
            {"schemaVersion": 1, "name": "answers", "app": {"bundleId": "com.example.answers"},
             "catalog": {"products": [{"productID": "com.example.answers.pro", "type": "NonConsumable"},
                                      {"productID": "com.example.answers.coins", "type": "Consumable"}]},
             "tiers": {"pro": ["com.example.answers.pro"]}, "consumables": {"com.example.answers.coins": {"balance": "coins", "amount": 10}},
             "accounts": {"a": {}},
             "cases": [{"id": "c", "kind": "fresh-purchase", "account": "a", "steps": [\(steps)]}]}
            """.utf8).write(to: url)
        return url.path
    }

    func run(_ steps: String) async throws -> AppHarnessResult {
        let path = try Self.matrix(steps)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try await AppHarness.run(matrix: path, options: .unhurried(reportsDirectory: nil)) { LetsErrorsThrough() }
    }

    @Test("a purchase or restore whose StoreKit error the app lets through is recorded failed, with the error")
    func storeKitErrorsAreAnswers() async throws {
        let result = try await run("""
            {"action": "launch"},
            {"action": "purchase", "product": "com.example.answers.pro", "failNext": {"call": "purchase", "error": "networkError"},
             "expect": {"result": "failed", "access": []}},
            {"action": "purchase", "product": "com.example.answers.pro", "failNext": {"call": "products", "error": "notAvailableInStorefront"},
             "expect": {"result": "failed"}},
            {"action": "restore", "failNext": {"call": "sync", "error": "userCancelled"}, "expect": {"result": "failed"}}
            """)
        #expect(result.passed, "\(result)")
        #expect(result.records[1].observed?.message?.hasPrefix("StoreKitError.networkError") == true)
        #expect(result.records[3].observed?.message == "StoreKitError.userCancelled")
    }

    @Test("terminate beforeFinish on an app that never finishes the transaction errors, naming finish()")
    func killPointNeverReached() async throws {
        let result = try await run("""
            {"action": "launch"},
            {"action": "purchase", "product": "com.example.answers.coins", "terminate": "beforeFinish"}
            """)
        let failure = try #require(result.failures.first)
        #expect(failure.step == 1 && failure.verdict == "error")
        #expect(failure.reason.contains("terminate: beforeFinish never happened: the app did not call finish()"), "\(failure.reason)")
    }

    @Test("a balance expectation on an app that does not implement balances() errors, naming balances()")
    func balancesNotImplemented() async throws {
        let result = try await run("""
            {"action": "launch"},
            {"action": "purchase", "product": "com.example.answers.coins", "expect": {"balance": {"coins": 10}}}
            """)
        let failure = try #require(result.failures.first)
        #expect(failure.step == 1 && failure.verdict == "error")
        #expect(failure.reason.contains(#"the step expects the balance "coins", but the app does not implement AppUnderTest.balances()"#),
                "\(failure.reason)")
    }
}
