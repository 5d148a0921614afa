import Foundation
import Threading

/// The time an app's store code compares store dates with, the same name under every App Store a conformance runs
/// on.
///
/// Give your store code its "now" from a clock you inject, and inject `StoreClock.now` in tests. On the simulated
/// App Store (SimulatedStoreKit) it is the store's virtual clock, which moves only when a step moves it, so code
/// that still compares a subscription's `expirationDate` with `Date()` is caught. Under StoreKit Testing in Xcode
/// (XcodeHarness) it is the wall clock, which StoreKit Testing's `timeRate` runs renewals against. Outside a case
/// it is `Date()`.
/// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/timerate-swift.property
public enum StoreClock {
    /// The store's time now.
    public static var now: Date {
        StoreTestingHooks.installed?.now() ?? Date()
    }
}

/// The app's `Transaction.updates` listener, as an ``AppUnderTest`` conformance waits for it, the same name under
/// every App Store a conformance runs on.
/// Apple: https://developer.apple.com/documentation/storekit/transaction/updates
public enum TransactionUpdates {
    /// How long a wait lasts where the App Store gives no signal that a listener started (StoreKit Testing).
    public static let unsignalledWait: Duration = .milliseconds(200)

    /// Waits until the app's `Transaction.updates` listener of this launch has started, for an app whose listener
    /// is a task its launch spawns: end ``AppUnderTest/launch()`` with it, so that the updates waiting at launch
    /// reach the listener before the step is observed.
    ///
    /// On the simulated App Store the wait ends when the listener asks for its first update, or after `limit`.
    /// StoreKit gives no such signal, so under StoreKit Testing (and outside a case) it yields and then sleeps
    /// ``unsignalledWait`` or `limit`, whichever is shorter.
    ///
    /// - Parameter limit: the longest wait.
    /// - Returns: `false` only when the App Store can tell that no listener started within `limit`.
    @discardableResult
    public static func waitForListener(within limit: Duration = .seconds(10)) async -> Bool {
        if let hooks = StoreTestingHooks.installed, let started = await hooks.waitForListener(limit) {
            return started
        }
        await Task.yield()
        try? await Task.sleep(for: boundedWait(within: limit))
        return true
    }

    /// How long ``waitForListener(within:)`` sleeps where nothing signals a listener: ``unsignalledWait``, or
    /// `limit` when that is shorter (never less than zero).
    static func boundedWait(within limit: Duration) -> Duration {
        max(.zero, min(limit, unsignalledWait))
    }
}

extension AppUnderTest {
    /// An app without consumables keeps no balances. (The simulated App Store notes that the app relies on this
    /// default, so that a step expecting a balance says so instead of reporting 0.)
    public func balances() async -> [String: Int] {
        StoreTestingHooks.installed?.noteDefaultBalances()
        return [:]
    }
}

/// What an App Store that runs in the test process installs so that ``StoreClock``, ``TransactionUpdates`` and the
/// default `balances()` answer from it. SimulatedStoreKit installs its virtual clock and its listener wait; under
/// StoreKit Testing nothing is installed and the wall clock and a bounded wait apply.
package struct StoreTestingHooks: Sendable {
    /// The store's time for the calling code, or `nil` when the calling code is in none of its cases.
    package var now: @Sendable () -> Date?
    /// Waits for the listener of the calling code's launch; `nil` when the calling code is in none of its cases.
    package var waitForListener: @Sendable (Duration) async -> Bool?
    /// Notes that the calling code's app answered with the default `balances()`.
    package var noteDefaultBalances: @Sendable () -> Void

    package init(now: @escaping @Sendable () -> Date?, waitForListener: @escaping @Sendable (Duration) async -> Bool?,
                 noteDefaultBalances: @escaping @Sendable () -> Void) {
        self.now = now
        self.waitForListener = waitForListener
        self.noteDefaultBalances = noteDefaultBalances
    }

    private static let slot = Locked<StoreTestingHooks?>(nil)

    /// Set around the code an App Store that answers for itself runs (StoreKit Testing, in XcodeHarness), so that
    /// a simulated App Store installed in the same process neither answers for that code nor records its calls as
    /// calls made outside a case.
    @TaskLocal package static var bypassed = false

    /// The hooks that answer for the calling code, if any.
    package static var installed: StoreTestingHooks? { bypassed ? nil : slot.withLock { $0 } }

    /// Installs `hooks` for the rest of the process (the last installed wins).
    package static func install(_ hooks: StoreTestingHooks) {
        slot.withLock { $0 = hooks }
    }
}
