// Look-alike: robustness's public API, attacked directly.
import Foundation
import Testing
import MatrixModel
import SimulatedStoreKit
import StoreSimulator

@Suite("Look-alike: robustness")
struct LookAlikeRobustnessTests {
    static let coins = "com.example.storekitmatrix.coins100"
    static let pro = "com.example.storekitmatrix.pro"

    @Test("finish() on a Transaction from another store (another case or run) does not finish this store's transaction")
    func staleTransactionFromAnotherCase() async throws {
        let caseOne = try LookAlike(), caseTwo = try LookAlike()
        let one = caseOne.device(), two = caseTwo.device()
        defer { one.close(); two.close() }
        let fromCaseOne = try await one.bought(Self.coins)
        let fromCaseTwo = try await two.bought(Self.coins)
        // Every store numbers its transactions from the same start, so that evidence is the same run after run: the
        // two share an id, and only the store a transaction came from tells them apart.
        #expect(fromCaseOne.id == fromCaseTwo.id)
        await two.run { await fromCaseOne.finish() }
        let unfinished = await two.productIDs { Transaction.unfinished }
        #expect(unfinished == [Self.coins], "case one's transaction finished case two's: unfinished now \(unfinished)")
    }

    @Test("purchase(options: [.quantity(n)]) beyond StoreKit's limit throws invalidQuantity", arguments: [11, 1_000_000])
    func quantityLimit(quantity: Int) async throws {
        let store = try LookAlike()
        let device = store.device()
        defer { device.close() }
        // Apple: a quantity above 10 fails with Product.PurchaseError.invalidQuantity.
        await #expect(throws: Product.PurchaseError.invalidQuantity) {
            _ = try await device.buy(Self.coins, options: [.quantity(quantity)])
        }
    }

    @Test("A huge quantity does not crash the process (Int64 overflow in AppStoreSimulator.addTransaction)")
    func hugeQuantityDoesNotCrash() async throws {
        await #expect(processExitsWith: .success) {
            let store = try LookAlike()
            let device = store.device()
            _ = try? await device.buy("com.example.storekitmatrix.coins100", options: [.quantity(Int.max / 2)])
        }
    }

    @Test("StoreKit calls from a task still bound to a closed session (a case that ended) fail instead of buying")
    func callsAfterClose() async throws {
        let store = try LookAlike()
        let device = store.device()
        device.close()
        // A `Task {}` the app started during the case inherits the binding and may run on after the case ended.
        let answer = await Task { try? await device.buy(Self.pro) }.value
        // Observed: the purchase succeeds on the closed case's store (StoreKitSession.resolve returns the bound
        // session without looking at `closed`; only Transaction.updates checks it).
        #expect(answer == nil, "a closed session sold \(Self.pro)")
    }
}
