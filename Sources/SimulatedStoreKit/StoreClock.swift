import Foundation

/// The time an app compares store dates with.
///
/// The simulated App Store runs on a virtual clock that moves only when a step moves it (a year of renewals
/// costs microseconds), so `Date()` is the wrong clock: a subscription the store renewed for a month looks
/// expired to code that compares its `expirationDate` with `Date()`, and one the store expired looks active.
/// Give your store code its "now" from a clock you inject, and inject `StoreClock.now` in tests; a matrix that
/// moves time then catches code that still reads `Date()` (docs/app-harness.md).
public enum StoreClock {
    /// The bound store's time; `Date()` outside any case.
    public static var now: Date {
        guard let session = StoreKitSession.current ?? (try? StoreKitSession.resolve(for: "StoreClock.now")) else { return Date() }
        return Date(milliseconds: session.store.withStore { $0.now })
    }
}
