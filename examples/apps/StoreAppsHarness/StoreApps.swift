// The two example stores wired to StoreKit Matrix's app harness: a few lines each, as a team writes them around
// its own Store class in its tests.
import AppHarness
import CarefulStore
import Foundation
import SimulatedStoreKit
import TutorialStore

/// The careful store installed on one device: `PurchaseStorage` is what the device keeps between launches,
/// `CarefulStore` the running app.
@MainActor
public final class CarefulStoreApp: AppUnderTest {
    let storage = PurchaseStorage()
    let now: @Sendable () -> Date
    var store: CarefulStore?

    /// - Parameter now: the clock the store compares dates with: the simulated store's (the right one), or for a
    ///   test of what goes wrong, `{ Date() }`.
    public nonisolated init(now: @escaping @Sendable () -> Date = { StoreClock.now }) {
        self.now = now
    }

    public func launch() async throws {
        let store = CarefulStore(storage: storage, now: now)
        self.store = store
        // The store's listener is a task its init starts: let it start before the launch is observed.
        _ = await TransactionUpdates.waitForListener()
        await store.refresh()
    }

    public func quit() async {
        store?.stop()
        store = nil
    }

    public func purchase(_ request: AppPurchaseRequest) async throws -> AppPurchaseReport? {
        guard let store, let product = try await Product.products(for: [request.productID]).first else { return nil }
        try await store.purchase(product, options: request.options(for: product))
        return nil
    }

    public func restore() async throws -> AppRestoreReport? {
        try await store?.restore()
        return nil
    }

    public func entitledProductIDs() async -> Set<String> {
        await store?.refresh()
        return store?.purchasedProductIDs ?? []
    }

    public func balances() async -> [String: Int] { ["coins": storage.coins] }
}

/// The tutorial store installed on one device.
@MainActor
public final class TutorialStoreApp: AppUnderTest {
    var savedCoins = 0
    var store: TutorialStore?

    public nonisolated init() {}

    public func launch() async throws {
        let store = TutorialStore(coins: savedCoins, saveCoins: { [weak self] in self?.savedCoins = $0 }, now: { StoreClock.now })
        self.store = store
        try await store.loadProducts()
        await store.updatePurchasedIDs()
    }

    public func quit() async {
        store?.stop()
        store = nil
    }

    public func purchase(_ request: AppPurchaseRequest) async throws -> AppPurchaseReport? {
        guard let store, let product = store.products.first(where: { $0.id == request.productID }) else { return nil }
        try await store.purchase(product, options: request.options(for: product))
        return nil
    }

    public func restore() async throws -> AppRestoreReport? {
        try await store?.restore()
        return nil
    }

    public func entitledProductIDs() async -> Set<String> {
        store?.purchasedIDs ?? []
    }

    public func balances() async -> [String: Int] { ["coins": store?.coins ?? savedCoins] }
}
