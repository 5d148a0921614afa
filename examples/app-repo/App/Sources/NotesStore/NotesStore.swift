import Foundation
import StoreKit

/// The Notes app's purchases, written for StoreKit 2 as Apple's guidance describes: a `Transaction.updates`
/// listener from launch, entitlements from `Transaction.currentEntitlements`, every verified transaction finished
/// after the app has delivered what it bought, consumables credited once per transaction.
///
/// The app builds this file against Apple's StoreKit; `StoreTests/` builds the same file against StoreKit
/// Matrix's look-alike, whose module is also named StoreKit, and runs the release matrix on it.
@MainActor
public final class NotesStore {
    /// What the app keeps on disk: the credits bought, and which transactions have been credited.
    public final class Ledger {
        public var credits = 0
        public var credited: Set<UInt64> = []
        public init() {}
    }

    public static let creditsProductID = "com.example.notes.credits50"
    /// Credits one purchase of ``creditsProductID`` adds.
    public static let creditsPerPurchase = 50

    /// The products the customer is entitled to now.
    public private(set) var entitledProductIDs: Set<String> = []
    public let ledger: Ledger
    private var updates: Task<Void, Never>?

    public init(ledger: Ledger) {
        self.ledger = ledger
    }

    /// Starts listening for transactions; call at launch, before anything else.
    public func start() {
        updates = Task { [weak self] in
            for await result in Transaction.updates {
                await self?.handle(result)
            }
        }
    }

    public func stop() {
        updates?.cancel()
        updates = nil
    }

    /// Buys `product`; what the purchase answered is the caller's to show.
    public func buy(_ product: Product, options: Set<Product.PurchaseOption> = []) async throws -> Product.PurchaseResult {
        let result = try await product.purchase(options: options)
        if case .success(let verification) = result {
            await handle(verification)
        }
        return result
    }

    /// The Restore Purchases button.
    public func restore() async throws {
        try await AppStore.sync()
        await refresh()
    }

    /// Delivers a transaction: credits a consumable once, finishes it, and refreshes what the customer has.
    func handle(_ result: VerificationResult<Transaction>) async {
        guard case .verified(let transaction) = result else { return }
        if transaction.productType == .consumable, transaction.productID == Self.creditsProductID,
           transaction.revocationDate == nil, !ledger.credited.contains(transaction.id) {
            ledger.credited.insert(transaction.id)
            ledger.credits += Self.creditsPerPurchase * transaction.purchasedQuantity
        }
        await transaction.finish()
        await refresh()
    }

    /// Reads what the customer is entitled to now. `currentEntitlements` already leaves out what expired or was
    /// refunded and keeps a subscription in its billing grace period, so the store compares no dates itself.
    public func refresh() async {
        var entitled: Set<String> = []
        for await case .verified(let transaction) in Transaction.currentEntitlements where transaction.revocationDate == nil {
            entitled.insert(transaction.productID)
        }
        entitledProductIDs = entitled
    }
}
