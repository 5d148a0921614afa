// A store as many tutorials write it, against StoreKit 2's API, with the three mistakes they make:
//  1. entitlements are checked product by product with `product.currentEntitlement`, and the loop returns at the
//     first product the customer does not own, so products after it are never checked;
//  2. a product is only ever added to `purchasedIDs`, never removed when its entitlement goes (a refund, an
//     expiry, a revocation);
//  3. the `Transaction.updates` listener starts when the store screen first opens, not at launch.
// It imports StoreKit as an app does; here, where the target depends on the look-alike's StoreKit module
// (Package.swift), the same file runs against StoreKit Matrix's simulated App Store.
import Foundation
import StoreKit

@MainActor
public final class TutorialStore {
    /// The products the app sells, in the order its store screen lists them.
    public static let productIDs = [
        "com.example.storekitmatrix.pro",
        "com.example.storekitmatrix.plus.monthly",
        "com.example.storekitmatrix.premium.yearly",
        "com.example.storekitmatrix.season",
        "com.example.storekitmatrix.weekpass",
    ]
    static let coinPacks: [String: Int] = ["com.example.storekitmatrix.coins100": 100]
    static let passDurations: [String: DateComponents] = [
        "com.example.storekitmatrix.season": DateComponents(year: 1),
        "com.example.storekitmatrix.weekpass": DateComponents(day: 7),
    ]

    public private(set) var purchasedIDs: Set<String> = []
    public private(set) var products: [Product] = []
    private let now: @Sendable () -> Date
    private var coinsStored: Int
    private let saveCoins: @MainActor (Int) -> Void
    private var updates: Task<Void, Never>?

    /// - Parameters:
    ///   - coins: the coins saved on the device; `saveCoins` saves them again.
    public init(coins: Int, saveCoins: @escaping @MainActor (Int) -> Void, now: @escaping @Sendable () -> Date = { Date() }) {
        coinsStored = coins
        self.saveCoins = saveCoins
        self.now = now
    }

    public var coins: Int { coinsStored }

    public func loadProducts() async throws {
        products = try await Product.products(for: Self.productIDs + Array(Self.coinPacks.keys))
            .sorted { (Self.productIDs.firstIndex(of: $0.id) ?? 99) < (Self.productIDs.firstIndex(of: $1.id) ?? 99) }
    }

    /// Mistake 3: the listener starts with the store screen. The screen waits until the listener's task has
    /// begun (it runs on the main actor up to its first wait), so the listener is there before anything is bought.
    public func storeScreenAppeared() async {
        guard updates == nil else { return }
        let (started, begin) = AsyncStream<Void>.makeStream()
        updates = Task { [weak self] in
            begin.finish()
            for await update in Transaction.updates {
                guard case .verified(let transaction) = update else { continue }
                self?.deliver(transaction)
                await transaction.finish()
                await self?.updatePurchasedIDs()
            }
        }
        for await _ in started {}
    }

    public func stop() {
        updates?.cancel()
        updates = nil
    }

    public func purchase(_ product: Product, options: Set<Product.PurchaseOption> = []) async throws {
        await storeScreenAppeared()
        let result = try await product.purchase(options: options)
        if case .success(.verified(let transaction)) = result {
            deliver(transaction)
            await transaction.finish()
            await updatePurchasedIDs()
        }
    }

    public func restore() async throws {
        await storeScreenAppeared()
        try await AppStore.sync()
        await updatePurchasedIDs()
    }

    /// Mistakes 1 and 2.
    public func updatePurchasedIDs() async {
        for product in products where product.type != .consumable {
            guard let entitlement = await product.currentEntitlement else { return }
            guard case .verified(let transaction) = entitlement else { continue }
            if let duration = Self.passDurations[transaction.productID] {
                var calendar = Calendar(identifier: .gregorian)
                calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
                guard let end = calendar.date(byAdding: duration, to: transaction.purchaseDate), end > now() else { continue }
            }
            purchasedIDs.insert(transaction.productID)
        }
    }

    private func deliver(_ transaction: Transaction) {
        guard let coins = Self.coinPacks[transaction.productID] else { return }
        coinsStored += coins * transaction.purchasedQuantity
        saveCoins(coinsStored)
    }
}
