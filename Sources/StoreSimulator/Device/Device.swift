/// A device signed in to an account, with the app installed on it.
///
/// The app's storage survives relaunch, not reinstall. `Transaction.updates` reaches the app only while it
/// runs with its listener started; what arrives meanwhile waits in the store's update log from
/// ``updateCursor`` on, and unfinished transactions are delivered again at every launch.
public final class Device {
    public let name: String
    public let account: String
    /// The app's persistent storage on this device (UserDefaults, files).
    public internal(set) var storage = AppStorage()
    /// The first update-log entry this device's app has not received yet.
    var updateCursor: Int
    /// The running app, or `nil` when it is not running.
    public internal(set) var process: AppProcess?

    init(name: String, account: String, updateCursor: Int) {
        self.name = name
        self.account = account
        self.updateCursor = updateCursor
    }

    public var isRunning: Bool { process != nil }
}

/// What the app keeps on disk: survives relaunch, not reinstall.
public struct AppStorage: Sendable, Hashable {
    /// Consumable balances by name.
    public var balances: [String: Int] = [:]
    /// Consumable transactions already credited (the app credits each transaction ID once).
    public var creditedTransactionIds: Set<String> = []
    /// Transactions the app has processed (only used by the `dropsProcessedTransactionIds` fault).
    public var processedTransactionIds: Set<String> = []
    /// Products the app recorded as purchased on this device (faults that keep their own records).
    public var recordedPurchases: Set<String> = []
    /// Expiration dates the app cached per product, ms since 1970 (`cachesExpirationDate` fault).
    public var cachedExpiry: [String: Int64] = [:]
}

/// A running instance of the app.
public final class AppProcess {
    /// Whether the `Transaction.updates` listener runs.
    public internal(set) var listening = false
    /// Whether the store view was opened (faults that start work there).
    var storeViewOpened = false
    /// Product IDs the app currently grants access for.
    public internal(set) var entitledProducts: Set<String> = []
    /// Products unlocked by a pending purchase (`pendingUnlocks` fault).
    var unlockedWhilePending: Set<String> = []

    init() {}
}
