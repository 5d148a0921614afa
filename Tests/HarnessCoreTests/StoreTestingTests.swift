import Foundation
@testable import HarnessCore
import Testing

/// The clock and the listener wait a conformance calls where no simulated App Store answers: what StoreKit
/// Testing in Xcode gets.
@Suite("StoreClock and TransactionUpdates where StoreKit Testing answers")
struct StoreTestingTests {
    @Test("the unsignalled listener wait is 200 ms or the limit, whichever is shorter, never negative")
    func waitHonoursLimit() {
        #expect(TransactionUpdates.boundedWait(within: .milliseconds(20)) == .milliseconds(20))
        #expect(TransactionUpdates.boundedWait(within: .zero) == .zero)
        #expect(TransactionUpdates.boundedWait(within: .seconds(10)) == .milliseconds(200))
        #expect(TransactionUpdates.boundedWait(within: .milliseconds(-5)) == .zero)
    }

    @Test("with the hooks bypassed (XcodeHarness), the store clock is the wall clock and the wait reports a listener, whatever App Store is installed")
    func wallClockWhenBypassed() async {
        let before = Date()
        let (now, started) = await StoreTestingHooks.$bypassed.withValue(true) {
            (StoreClock.now, await TransactionUpdates.waitForListener(within: .zero))
        }
        #expect(now >= before && now.timeIntervalSince(before) < 60, "\(now)")
        #expect(started)
        #expect(StoreTestingHooks.$bypassed.withValue(true) { StoreTestingHooks.installed == nil })
    }
}
