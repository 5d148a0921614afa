// robustness: an app call that never returns hangs the whole run. Only `Transaction.updates` handling is bounded
// (settleLimit); launch, quit, purchase, restore, entitledProductIDs and balances are awaited without a limit,
// and a purchase is not even reached by cancellation.
import AppHarness
import Foundation
import SimulatedStoreKit
import Testing
import Threading

@Suite("App harness: app calls that never return")
struct HangTests {
    enum Call: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case launch, quit, purchase, restore, entitledProductIDs, balances
        var testDescription: String { rawValue }
    }

    /// An app whose `call` waits for `gate` (forever, unless the test opens it).
    final class HangingApp: ProbeApp {
        let probe = ProbeState()
        let call: Call
        let gate: Gate
        let cancellable: Bool
        /// Opened when the call starts to hang.
        let entered: Gate
        init(_ call: Call, gate: Gate, cancellable: Bool = false, entered: Gate = Gate()) {
            self.call = call
            self.gate = gate
            self.cancellable = cancellable
            self.entered = entered
        }

        func hang(_ here: Call) async throws {
            guard here == call else { return }
            entered.open()
            if cancellable {
                // A hang that honours cancellation, as `Task.sleep` or a URLSession call does.
                try await Task.sleep(for: .seconds(3600))
            } else {
                await gate.wait()
            }
        }

        func launch() async throws { try await hang(.launch); try await plainLaunch() }
        func quit() async { try? await hang(.quit); await plainQuit() }
        func purchase(_ request: AppPurchaseRequest) async throws -> AppPurchaseReport? {
            try await hang(.purchase)
            return try await plainPurchase(request)
        }
        func restore() async throws -> AppRestoreReport? { try await hang(.restore); return try await plainRestore() }
        func entitledProductIDs() async -> Set<String> { try? await hang(.entitledProductIDs); return await plainEntitledProductIDs() }
        func balances() async -> [String: Int] { try? await hang(.balances); return await plainBalances() }
    }

    static func matrix() throws -> String {
        try Probe.matrix(#"""
            [{"id": "hang", "kind": "fresh-purchase", "account": "a", "steps": [
              {"action": "launch"},
              {"action": "purchase", "product": "com.example.storekitmatrix.pro"},
              {"action": "restore"},
              {"action": "relaunch"}]}]
            """#)
    }

    @Test("A call into the app that never returns errors its step after a limit, instead of hanging the run",
          arguments: Call.allCases)
    func neverReturns(_ call: Call) async throws {
        let path = try Self.matrix()
        let gate = Gate()
        defer { gate.open() }  // let the stuck run end after the test, so that its session closes
        let outcome = await Probe.within(Probe.hangLimit) {
            try await AppHarness.run(matrix: path, options: .init(reportsDirectory: nil, settleLimit: .milliseconds(500), callLimit: .seconds(1))) {
                HangingApp(call, gate: gate)
            }
        }
        // Observed: no answer at all; the run (and `swift test`, and CI) waits forever. settleLimit bounds only
        // the Transaction.updates handling.
        #expect(outcome != nil, "AppHarness.run did not return within \(Probe.hangLimit) while \(call.rawValue)() never returned")
    }

    @Test("Cancelling a run reaches the app's purchase() (it runs in an unstructured Task that cancellation misses)")
    func cancellationReachesPurchase() async throws {
        let path = try Self.matrix()
        for call in [Call.launch, .purchase] {
            let run = Task {
                try await AppHarness.run(matrix: path, options: .unhurried(reportsDirectory: nil)) {
                    HangingApp(call, gate: Gate(), cancellable: true)
                }
            }
            try await Task.sleep(for: .milliseconds(500))
            run.cancel()
            let ended = await Probe.within(Probe.hangLimit) { _ = await run.result }
            // launch: the CancellationError reaches Task.sleep and the run ends (interrupted).
            // purchase: LocalSession runs it through StoreKitSession.runUntilKilled, whose `Task { }` does not
            // inherit cancellation, so the run stays stuck for the whole sleep (an hour here, longer than the test waits).
            #expect(ended != nil, "a cancelled run did not end within \(Probe.hangLimit) while the app's \(call.rawValue)() slept")
        }
    }

    @Test("Cancelling a run (Ctrl-C) ends it while the app's call ignores cancellation, without waiting for the call limit",
          arguments: [Call.launch, .purchase, .entitledProductIDs])
    func cancellationLeavesAStuckCall(_ call: Call) async throws {
        let path = try Self.matrix()
        let gate = Gate()
        defer { gate.open() }
        let entered = Gate()
        // The call limit is 600 s, longer than the test waits for the run to end.
        let run = Task {
            try await AppHarness.run(matrix: path, options: .unhurried(reportsDirectory: nil)) {
                HangingApp(call, gate: gate, entered: entered)
            }
        }
        #expect(await entered.wait(upTo: Probe.hangLimit), "the app's \(call.rawValue)() was never called")
        run.cancel()
        let ended = await Probe.within(Probe.hangLimit) { _ = await run.result }
        #expect(ended != nil, "a cancelled run waited for the app's \(call.rawValue)(), which ignores cancellation")
    }
}
