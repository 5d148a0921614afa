// A store written as Apple's guidance describes it, against StoreKit 2's API. It imports StoreKit as an app does:
// in an app that is Apple's StoreKit; here, where the target depends on the look-alike's StoreKit module
// (Package.swift), the same file runs against StoreKit Matrix's simulated App Store.
import Foundation
import StoreKit

/// The app's purchases: what the customer is entitled to, and the coins they bought.
///
/// - A `Transaction.updates` listener runs from the moment the store exists; every transaction is verified,
///   delivered, then finished.
/// - Entitlements are read from `Transaction.currentEntitlements` whenever the app shows its state, so refunds,
///   expirations, upgrades and Family Sharing changes show at once.
/// - Coins are credited once per transaction, in storage that survives a relaunch.
/// - A non-renewing subscription lasts as long as the app says; "now" comes from the clock the store was given.
@MainActor
public final class CarefulStore {
    /// Products the customer may use now.
    public private(set) var purchasedProductIDs: Set<String> = []
    private let storage: PurchaseStorage
    private let now: @Sendable () -> Date
    private var updates: Task<Void, Never>?

    /// How long each non-renewing subscription lasts, and what each coin pack credits.
    static let passDurations: [String: DateComponents] = [
        "com.example.storekitmatrix.season": DateComponents(year: 1),
        "com.example.storekitmatrix.weekpass": DateComponents(day: 7),
    ]
    static let coinPacks: [String: Int] = ["com.example.storekitmatrix.coins100": 100]

    /// Starts listening for transactions at once, before anything else can happen.
    public init(storage: PurchaseStorage, now: @escaping @Sendable () -> Date = { Date() }) {
        self.storage = storage
        self.now = now
        updates = Task { [weak self] in
            for await update in Transaction.updates {
                await self?.handle(update)
            }
        }
    }

    /// Stops the listener (the app goes away).
    public func stop() {
        updates?.cancel()
        updates = nil
    }

    /// The coins the customer holds.
    public var coins: Int { storage.coins }

    /// Buys a product; returns its transaction once delivered and finished, `nil` when the customer cancelled
    /// or the purchase waits for approval.
    @discardableResult
    public func purchase(_ product: Product, options: Set<Product.PurchaseOption> = []) async throws -> Transaction? {
        switch try await product.purchase(options: options) {
        case .success(let verification):
            guard case .verified(let transaction) = verification else { return nil }
            deliver(transaction)
            await transaction.finish()
            await refresh()
            return transaction
        case .pending, .userCancelled:
            return nil
        }
    }

    /// Restore Purchases: sync with the App Store, then read the entitlements again.
    public func restore() async throws {
        try await AppStore.sync()
        await refresh()
    }

    /// Reads what the customer is entitled to now.
    public func refresh() async {
        var entitled: Set<String> = []
        for await result in Transaction.currentEntitlements {
            guard case .verified(let transaction) = result else { continue }
            if let duration = Self.passDurations[transaction.productID] {
                let calendar = Self.calendar
                guard let end = calendar.date(byAdding: duration, to: transaction.purchaseDate), end > now() else { continue }
            }
            entitled.insert(transaction.productID)
        }
        purchasedProductIDs = entitled
    }

    private func handle(_ update: VerificationResult<Transaction>) async {
        guard case .verified(let transaction) = update else { return }
        if transaction.revocationDate == nil { deliver(transaction) }
        await transaction.finish()
        await refresh()
    }

    /// Credits a coin pack once per transaction; other products are entitlements, read by ``refresh()``.
    private func deliver(_ transaction: Transaction) {
        guard let coins = Self.coinPacks[transaction.productID] else { return }
        storage.credit(coins * transaction.purchasedQuantity, for: transaction.id)
    }

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        return calendar
    }()
}
