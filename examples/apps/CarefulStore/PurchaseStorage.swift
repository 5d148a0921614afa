import Foundation
import Synchronization

/// What the app keeps on the device between launches (UserDefaults in a real app): coins, and the transactions
/// already credited.
public final class PurchaseStorage: Sendable {
    private struct Values {
        var coins = 0
        var credited: Set<UInt64> = []
    }

    private let values = Mutex(Values())

    public init() {}

    /// The coins credited so far.
    public var coins: Int { values.withLock { $0.coins } }

    /// Credits `amount` coins for `transaction`, once.
    public func credit(_ amount: Int, for transaction: UInt64) {
        values.withLock { values in
            if values.credited.insert(transaction).inserted { values.coins += amount }
        }
    }
}
