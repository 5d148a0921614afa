// robustness: Transaction.updates iterators the app stops using, and many listeners.
import Foundation
import Synchronization
import Testing
import AppHarness
import SimulatedStoreKit

@Suite("App harness: Transaction.updates listeners")
struct ListenerTests {
    /// A correct app with a second, one-shot look at `Transaction.updates`: it waits for the first update (to show
    /// a "thanks for your purchase" banner, say) and stops looking. With Apple's StoreKit the iterator is
    /// simply dropped.
    final class OneShotApp: PlainProbeApp, @unchecked Sendable {
        var banner: Task<Void, Never>?
        let firstProduct = Mutex<String?>(nil)

        override func launch() async throws {
            try await super.launch()
            banner = Task { [self] in
                for await update in Transaction.updates {
                    firstProduct.withLock { $0 = update.unsafePayloadValue.productID }
                    break
                }
            }
        }
    }

    @Test("Breaking out of a `for await … in Transaction.updates` loop does not stall or error later steps")
    func abandonedIterator() async throws {
        let path = try Probe.matrix(#"""
            [{"id": "outside", "kind": "fresh-purchase", "account": "a", "steps": [
               {"action": "launch", "expect": {"access": []}},
               {"action": "purchaseOutsideApp", "product": "com.example.storekitmatrix.pro", "expect": {"access": ["pro"]}},
               {"action": "refund", "product": "com.example.storekitmatrix.pro", "expect": {"access": []}}]}]
            """#)
        let result = try await AppHarness.run(matrix: path, options: .init(reportsDirectory: nil, settleLimit: .seconds(30))) { OneShotApp() }
        // A dropped iterator ends its listener, so the launch settles at once; an abandoned listener left registered
        // would keep the step waiting until settleLimit, then error it.
        #expect(result.failures.isEmpty, "\(result)")
    }

    /// An app that starts a listener per screen and never stops them (a leak, but a harmless one on a device):
    /// `count` listeners, each finishing what it gets.
    final class ManyListenersApp: PlainProbeApp, @unchecked Sendable {
        let count: Int
        var extra: [Task<Void, Never>] = []
        init(count: Int) { self.count = count }

        override func launch() async throws {
            try await super.launch()
            for _ in 0..<count {
                extra.append(Task { for await _ in Transaction.updates {} })
            }
        }

        override func quit() async {
            for task in extra { task.cancel() }
            extra = []
            await super.quit()
        }
    }

}

@Suite("App harness: tiny settle limits")
struct TinySettleLimitTests {
    /// Takes its first update and never asks for the next.
    final class StuckApp: PlainProbeApp, @unchecked Sendable {
        override func launch() async throws {
            listener = Task {
                for await _ in Transaction.updates { await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in } }
            }
            _ = await StoreKitSession.waitForListener()
        }
    }

    @Test("Held up: settleLimit: .zero with a stuck listener errors the step at once (it does not hang)", arguments: 0..<20)
    func zeroLimit(_ attempt: Int) async throws {
        let path = try Probe.matrix(#"""
            [{"id": "stuck", "kind": "fresh-purchase", "account": "a", "steps": [
               {"action": "launch"}, {"action": "purchaseOutsideApp", "product": "com.example.storekitmatrix.pro"}]}]
            """#)
        let outcome = await Probe.within(.seconds(60)) {
            try await AppHarness.run(matrix: path, options: .init(reportsDirectory: nil, settleLimit: .zero)) { StuckApp() }
        }
        // The limit's child task can win before the waiter is queued; the waiter checks cancellation under the lock
        // that releases it, so it is never left queued.
        #expect(outcome != nil, "attempt \(attempt): the run hung")
    }
}
