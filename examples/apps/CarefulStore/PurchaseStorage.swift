import Foundation

/// What the app keeps on the device between launches (UserDefaults in a real app): coins, and the transactions
/// already credited.
///
/// `@unchecked Sendable`: every access to `values` holds `lock`. (Synchronization's `Mutex` would say the same in
/// fewer words, but it needs iOS 18 and macOS 15, and this store supports iOS 16.)
public final class PurchaseStorage: @unchecked Sendable {
    private struct Values {
        var coins = 0
        var credited: Set<UInt64> = []
    }

    private let lock = NSLock()
    private var values = Values()

    public init() {}

    /// The coins credited so far.
    public var coins: Int { lock.withLock { values.coins } }

    /// Credits `amount` coins for `transaction`, once.
    public func credit(_ amount: Int, for transaction: UInt64) {
        lock.withLock {
            if values.credited.insert(transaction).inserted { values.coins += amount }
        }
    }
}
