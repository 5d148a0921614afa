// robustness: what an app's own CancellationError does to a run, and what a "killed" app can still do.
import AppHarness
import Foundation
import SimulatedStoreKit
import TestSupport
import Testing
import Threading

@Suite("App harness: CancellationError from the app, and kills")
struct KillAndCancelTests {
    /// An app that reports a cancelled purchase sheet by throwing `CancellationError` (a common way to say "the
    /// user backed out"), and whose launch on the second installation throws it (a cancelled products load).
    final class CancellingApp: ProbeApp {
        let probe = ProbeState()
        let throwAtLaunch: Bool
        init(throwAtLaunch: Bool) { self.throwAtLaunch = throwAtLaunch }

        func launch() async throws {
            if throwAtLaunch { throw CancellationError() }
            try await plainLaunch()
        }

        func purchase(_ request: AppPurchaseRequest) async throws -> AppPurchaseReport? {
            guard let product = try await Product.products(for: [request.productID]).first else { return nil }
            switch try await product.purchase(options: request.options(for: product)) {
            case .userCancelled: throw CancellationError()
            case .success(.verified(let transaction)): await transaction.finish()
            default: break
            }
            return nil
        }
    }

    @Test("An app that throws CancellationError errors its step; the run goes on to the other cases",
          arguments: [false, true])
    func appCancellationIsAnError(atLaunch: Bool) async throws {
        let path = try Probe.matrix(#"""
            [{"id": "first", "kind": "cancel", "account": "a", "steps": [
               {"action": "launch"},
               {"action": "purchase", "product": "com.example.storekitmatrix.pro", "outcome": "userCancelled", "expect": {"result": "userCancelled"}}]},
             {"id": "second", "kind": "fresh-purchase", "account": "b", "steps": [
               {"action": "launch"}, {"action": "observe", "expect": {"access": []}}]}]
            """#)
        let result = try await AppHarness.run(matrix: path, options: .unhurried(reportsDirectory: nil)) { CancellingApp(throwAtLaunch: atLaunch) }
        // Observed: the Runner takes the app's CancellationError for the run being cancelled (Runner.swift's
        // `catch is CancellationError` in runCase): no record for the step, the second case never runs, and the
        // run is "interrupted" with nothing saying which step or why.
        #expect(result.records.count == 4, "records: \(result.records.map { "\($0.case)#\($0.step) \($0.verdict.rawValue)" })")
        #expect(!result.summary.interrupted, "the run says it was interrupted; nobody interrupted it")
        #expect(result.failures.contains { $0.caseID == "first" && $0.verdict == "error" })
    }

    /// An app whose purchase path does what many do on an error: try once more. A process killed in
    /// `purchase(options:)` never gets to; here it does.
    final class RetryingApp: ProbeApp {
        let probe = ProbeState()
        let notes: Notes
        let zombieDone = Gate()
        init(notes: Notes) { self.notes = notes }

        func launch() async throws {
            // The second launch: give a zombie of the first its chance (it gets it at once if it has one).
            if notes.all.contains("launched") { _ = await zombieDone.wait(upTo: .seconds(2)) }
            notes.add("launched")
            try await plainLaunch()
        }

        func purchase(_ request: AppPurchaseRequest) async throws -> AppPurchaseReport? {
            guard let product = try await Product.products(for: [request.productID]).first else { return nil }
            do {
                _ = try await product.purchase(options: request.options(for: product))
            } catch {
                notes.add("purchase() returned into the app after the kill: \(error)")
                let again = try? await product.purchase(options: request.options(for: product))
                if case .success(let verification)? = again {
                    notes.add("the killed process bought again: transaction \(verification.unsafePayloadValue.id)")
                }
                zombieDone.open()
            }
            return nil
        }
    }

    @Test("terminate beforeDelivery: the killed call never returns into the app during the case, and buys nothing more")
    func killedPurchaseStaysDead() async throws {
        let path = try Probe.matrix(#"""
            [{"id": "killed", "kind": "consumable", "account": "a", "steps": [
               {"action": "launch"},
               {"action": "purchase", "product": "com.example.storekitmatrix.coins100", "terminate": "beforeDelivery"},
               {"action": "launch"},
               {"action": "observe"}]}]
            """#)
        let notes = Notes()
        let app = RetryingApp(notes: notes)
        let result = try await AppHarness.run(matrix: path, options: .unhurried(reportsDirectory: nil)) { app }
        // docs/app-harness.md, "Kills": "A killed call never returns into your code during the case". It does:
        // endLaunch() (StoreKitSession.swift) resumes the held call, which throws CancellationError into the app,
        // and `killed` is already false again, so the dead process's next purchase goes through.
        let seen = notes.all
        #expect(!seen.contains { $0.hasPrefix("purchase() returned into the app") }, "\(seen)")
        #expect(!seen.contains { $0.hasPrefix("the killed process bought again") }, "\(seen)")
        let ids = result.records.map { "#\($0.step) \($0.action.action.rawValue): \($0.observed?.transactionIds ?? [])" }
        print("robustness: transactions per step: \(ids)")
        // The dead process's transaction lands in the relaunch's record, as if the launch had made it, or (when it
        // falls between two steps' snapshots) in no record at all.
        #expect(result.records.filter { $0.step != 1 }.allSatisfy { $0.observed?.transactionIds.isEmpty ?? true },
                "transactions per step: \(ids)")
    }

    /// Credits coins after `finish()` returns. On a device, a kill at `finish()` means the credit never happens
    /// and the transaction is replayed at the next launch, where it is credited once.
    final class CreditAfterFinishApp: ProbeApp {
        let probe = ProbeState()
        let notes: Notes
        init(notes: Notes) { self.notes = notes }

        func purchase(_ request: AppPurchaseRequest) async throws -> AppPurchaseReport? {
            guard let product = try await Product.products(for: [request.productID]).first else { return nil }
            if case .success(.verified(let transaction)) = try await product.purchase(options: request.options(for: product)) {
                await transaction.finish()
                notes.add("code after the killed finish() ran")
                credit(transaction)
            }
            return nil
        }

        /// No dedupe needed on a device: a transaction is credited once in the purchase path, or (when the app
        /// died before crediting) once when it is replayed at launch.
        func credit(_ transaction: Transaction) {
            guard transaction.productType == .consumable else { return }
            probe.coins.withLock { $0 += 100 * transaction.purchasedQuantity }
        }
    }

    @Test("terminate beforeFinish: nothing after the killing finish() runs, and the transaction stays unfinished")
    func killedFinishStaysDead() async throws {
        let path = try Probe.matrix(#"""
            [{"id": "killed-at-finish", "kind": "consumable", "account": "a", "steps": [
               {"action": "launch"},
               {"action": "purchase", "product": "com.example.storekitmatrix.coins100", "terminate": "beforeFinish"},
               {"action": "launch", "expect": {"balance": {"coins": 100}}},
               {"action": "relaunch", "expect": {"balance": {"coins": 100}}}]}]
            """#)
        let notes = Notes()
        let app = CreditAfterFinishApp(notes: notes)
        let result = try await AppHarness.run(matrix: path, options: .unhurried(reportsDirectory: nil)) { app }
        #expect(!notes.all.contains("code after the killed finish() ran"), "\(notes.all)")
        // On a device: killed at finish, nothing credited, replayed at launch, credited once: 100, a pass.
        #expect(result.failures.isEmpty, "\(result)")
    }
}

@Suite("App harness: a terminate that does not happen in its step")
struct DeferredKillTests {
    /// Restore Purchases that also finishes what is left unfinished (Apple's advice for `Transaction.unfinished`,
    /// done from the Restore button).
    final class FinishOnRestoreApp: ProbeApp {
        let probe = ProbeState()
        let notes: Notes
        init(notes: Notes) { self.notes = notes }

        func restore() async throws -> AppRestoreReport? {
            try await AppStore.sync()
            for await case .verified(let transaction) in Transaction.unfinished {
                notes.add("restore finishes \(transaction.productID)")
                credit(transaction)
                await transaction.finish()
                notes.add("finish() returned")
            }
            return nil
        }
    }

    @Test("terminate beforeFinish on a purchase whose transaction is not finished in the step: the step does not pass silently, and no later step dies")
    func killArmedForLater() async throws {
        // The purchase's transaction is handed out unverified (failNext), so the app does not finish it: the kill
        // the step asks for never happens. The step passes; the kill stays armed (killOnFinish) for the launch.
        let path = try Probe.matrix(#"""
            [{"id": "armed", "kind": "consumable", "account": "a", "steps": [
               {"action": "launch"},
               {"action": "purchase", "product": "com.example.storekitmatrix.coins100", "terminate": "beforeFinish",
                "failNext": {"call": "verification", "error": "invalidSignature"}},
               {"action": "restore"},
               {"action": "observe"}]}]
            """#)
        let notes = Notes()
        let outcome = await Probe.within(Probe.hangLimit) {
            try await AppHarness.run(matrix: path, options: .unhurried(reportsDirectory: nil, settleLimit: .seconds(1))) { FinishOnRestoreApp(notes: notes) }
        }
        // Observed: AppHarness.run never returns. At the restore step the app finishes the transaction, which
        // "kills" it (StoreKitSession.mayFinish → die()), but only the purchase step watches for a kill
        // (LocalSession.purchase → runUntilKilled): restore() is held forever, and the run with it.
        let result = try #require(outcome, "the run hung after \(notes.all)").get()
        let purchase = try #require(result.records.first { $0.step == 1 })
        #expect(purchase.verdict != .pass, "the step asked for a kill that did not happen, and passed")
    }

    @Test("--env local, the reference app: a kill armed by an unverified purchase does not strike at a later refund")
    func armedKillWithReferenceApp() async throws {
        let path = try Probe.matrix(#"""
            [{"id": "armed-refund", "kind": "refund", "account": "a", "steps": [
               {"action": "launch"},
               {"action": "purchase", "product": "com.example.storekitmatrix.pro", "terminate": "beforeFinish",
                "failNext": {"call": "verification", "error": "invalidSignature"}},
               {"action": "refund", "product": "com.example.storekitmatrix.pro", "expect": {"access": []}}]}]
            """#)
        let out = try MatrixBinary.scratchDirectory("armed")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try await MatrixBinary.run(["run", path, "--out", out.path])
        // Observed, after a 10 s stall: "ERROR armed-refund — step 2 (refund): the app on a/device-1 did not finish
        // handling its Transaction.updates within 10.0 seconds; a listener that never asks for the next update
        // stops the case". The reference app's listener finished the refunded transaction and "died" there
        // (StoreKitSession.mayFinish), and nothing but a purchase step watches for a death. The purchase step
        // itself passed although its kill never happened.
        #expect(!run.stderr.contains("did not finish handling its Transaction.updates"), "\(run.stderr)")
    }

    @Test("A purchase step whose terminate cannot happen (pending, cancelled) does not pass as if it had",
          arguments: [#""outcome": "pending""#, #""outcome": "userCancelled""#])
    func unmetTerminate(_ setup: String) async throws {
        let path = try Probe.matrix(#"""
            [{"id": "unmet", "kind": "consumable", "account": "a", "steps": [
               {"action": "launch"},
               {"action": "purchase", "product": "com.example.storekitmatrix.coins100", "terminate": "beforeDelivery", \#(setup)}]}]
            """#)
        let result = try await AppHarness.run(matrix: path, options: .unhurried(reportsDirectory: nil)) { PlainProbeApp() }
        let step = try #require(result.records.first { $0.step == 1 })
        // Observed: pass. An unmet failNext errors its step ("the failure set up for it changed nothing"); an
        // unmet terminate is not checked (LocalSession.purchase only looks at whether runUntilKilled returned nil).
        #expect(step.verdict != .pass, "\(setup): \(step.verdict.rawValue), \(step.reason ?? "")")
    }
}
