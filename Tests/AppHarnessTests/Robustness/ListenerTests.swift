// robustness: Transaction.updates iterators the app stops using, and many listeners.
import AppHarness
import Foundation
import SimulatedStoreKit
import Testing
import Threading

@Suite("App harness: Transaction.updates listeners")
struct ListenerTests {
    /// A correct app with a second, one-shot look at `Transaction.updates`: it waits for the first update (to show
    /// a "thanks for your purchase" banner, say) and stops looking. With Apple's StoreKit the iterator is
    /// simply dropped.
    final class OneShotApp: ProbeApp {
        let probe = ProbeState()
        let banner = Locked<Task<Void, Never>?>(nil)
        let firstProduct = Locked<String?>(nil)

        func launch() async throws {
            try await plainLaunch()
            let task = Task { [self] in
                for await update in Transaction.updates {
                    firstProduct.withLock { $0 = update.unsafePayloadValue.productID }
                    break
                }
            }
            banner.withLock { $0 = task }
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
        let result = try await AppHarness.run(matrix: path, options: .unhurried(reportsDirectory: nil, settleLimit: .seconds(30))) { OneShotApp() }
        // A dropped iterator ends its listener, so the launch settles at once; an abandoned listener left registered
        // would keep the step waiting until settleLimit, then error it.
        #expect(result.failures.isEmpty, "\(result)")
    }

    /// An app that starts a listener per screen and never stops them (a leak, but a harmless one on a device):
    /// `count` listeners, each finishing what it gets.
    final class ManyListenersApp: ProbeApp {
        let probe = ProbeState()
        let count: Int
        let extra = Locked<[Task<Void, Never>]>([])
        init(count: Int) { self.count = count }

        func launch() async throws {
            try await plainLaunch()
            for _ in 0..<count {
                let task = Task { for await _ in Transaction.updates {} }
                extra.withLock { $0.append(task) }
            }
        }

        func quit() async {
            let started = extra.withLock { tasks -> [Task<Void, Never>] in
                defer { tasks = [] }
                return tasks
            }
            for task in started { task.cancel() }
            await plainQuit()
        }
    }

}

@Suite("App harness: tiny settle limits")
struct TinySettleLimitTests {
    /// Takes its first update and never asks for the next.
    final class StuckApp: ProbeApp {
        let probe = ProbeState()
        func launch() async throws {
            let task = Task {
                for await _ in Transaction.updates { await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in } }
            }
            probe.listener.withLock { $0 = task }
            _ = await StoreKitSession.waitForListener()
        }
    }

    @Test("Held up: settleLimit: .zero with a stuck listener errors the step at once (it does not hang)", arguments: 0..<20)
    func zeroLimit(_ attempt: Int) async throws {
        let path = try Probe.matrix(#"""
            [{"id": "stuck", "kind": "fresh-purchase", "account": "a", "steps": [
               {"action": "launch"}, {"action": "purchaseOutsideApp", "product": "com.example.storekitmatrix.pro"}]}]
            """#)
        let outcome = await Probe.within(Probe.hangLimit) {
            try await AppHarness.run(matrix: path, options: .unhurried(reportsDirectory: nil, settleLimit: .zero)) { StuckApp() }
        }
        // The limit's child task can win before the waiter is queued; the waiter checks cancellation under the lock
        // that releases it, so it is never left queued.
        #expect(outcome != nil, "attempt \(attempt): the run hung")
    }
}
