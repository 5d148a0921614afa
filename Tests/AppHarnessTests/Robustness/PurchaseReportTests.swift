// robustness: what the harness records for a purchase step when the app's purchase path does something else.
import Foundation
import Testing
import AppHarness
import SimulatedStoreKit

@Suite("App harness: purchase steps")
struct PurchaseReportTests {
    /// A store whose product list is off by one (a classic): asked for Plus Monthly it sells Premium Yearly.
    final class WrongProductApp: ProbeApp {
        let probe = ProbeState()
        func purchase(_ request: AppPurchaseRequest) async throws -> AppPurchaseReport? {
            let wrong = request.productID == Probe.plus ? Probe.premium : request.productID
            guard let product = try await Product.products(for: [wrong]).first else { return nil }
            if case .success(.verified(let transaction)) = try await product.purchase(options: request.options(for: product)) {
                await transaction.finish()
            }
            return nil
        }
    }

    @Test("A purchase step whose app bought another product does not pass on result and access alone")
    func wrongProductBought() async throws {
        // One tier for both subscriptions of the group, as an app with "Pro monthly" and "Pro yearly" has.
        let path = try Probe.matrix(#"""
            [{"id": "buy-monthly", "kind": "fresh-purchase", "account": "a", "steps": [
               {"action": "launch", "expect": {"access": []}},
               {"action": "purchase", "product": "com.example.storekitmatrix.plus.monthly",
                "expect": {"result": "success", "access": ["subscriber"]}}]}]
            """#, tiers: #"{"subscriber": ["com.example.storekitmatrix.plus.monthly", "com.example.storekitmatrix.premium.yearly"]}"#)
        let result = try await AppHarness.run(matrix: path, options: .unhurried(reportsDirectory: nil)) { WrongProductApp() }
        let step = try #require(result.records.first { $0.step == 1 })
        // Observed: pass. The record says product plus.monthly, result success, and its transactionIds name a
        // premium.yearly transaction; LocalSession.purchase takes "the last purchase(options:) answer" without
        // asking which product it was for (PurchaseRecord has no product).
        #expect(step.verdict != .pass, "\(step.verdict.rawValue): \(step.observed?.transactions.map(\.productId) ?? [])")
    }

    /// Grants product IDs that are in no tier and not in the catalog (a typo, a stale ID).
    final class UnknownIDsApp: ProbeApp {
        let probe = ProbeState()
        func entitledProductIDs() async -> Set<String> {
            await plainEntitledProductIDs().union(["com.example.storekitmatrix.pro.typo", ""])
        }
    }

}
