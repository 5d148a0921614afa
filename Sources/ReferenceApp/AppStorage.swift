import Foundation
import SimulatedStoreKit
/// What the reference app keeps on disk: survives relaunch, not reinstall.
struct AppStorage: Sendable, Hashable {
    /// Consumable balances by name.
    var balances: [String: Int] = [:]
    /// Consumable transactions already credited (the app credits each transaction ID once).
    var creditedTransactionIds: Set<String> = []
    /// Transactions the app has processed (only used by the `dropsProcessedTransactionIds` fault).
    var processedTransactionIds: Set<String> = []
    /// Products the app recorded as purchased on this device (faults that keep their own records).
    var recordedPurchases: Set<String> = []
    /// Expiration dates the app cached per product (`cachesExpirationDate` fault).
    var cachedExpiry: [String: Date] = [:]
}

import SimulatedStoreKit

/// The state of the running reference app: gone when it quits.
struct AppProcess: Sendable, Hashable {
    /// Whether the `Transaction.updates` listener runs.
    var listening = false
    /// Whether the store view was opened (faults that start work there).
    var storeViewOpened = false
    /// Product IDs the app currently grants access for.
    var entitledProducts: Set<String> = []
    /// Products unlocked by a pending purchase (`pendingUnlocks` fault).
    var unlockedWhilePending: Set<String> = []
    /// The app's products, once loaded.
    var products: [Product]?
}
