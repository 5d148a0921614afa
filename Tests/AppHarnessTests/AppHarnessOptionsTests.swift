import AppHarness
import Foundation
import SimulatedStoreKit
import Testing
import Threading

/// What AppHarness.Options promise reaches the run.
@Suite("App harness options")
struct AppHarnessOptionsTests {
    /// An app whose `Transaction.updates` loop takes the first update and never asks for the next.
    final class StuckApp: AppUnderTest, Sendable {
        let listener = Locked<Task<Void, Never>?>(nil)

        func launch() async throws {
            let task = Task {
                for await _ in Transaction.updates {
                    await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
                }
            }
            listener.withLock { $0 = task }
            _ = await StoreKitSession.waitForListener()
        }

        func quit() async { listener.withLock { $0 }?.cancel() }
        func restore() async throws -> AppRestoreReport? { nil }
        func entitledProductIDs() async -> Set<String> { [] }
    }

    static func matrixFile() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("stuck-\(UUID().uuidString).json")
        try Data(#"""
            {"schemaVersion": 1, "name": "stuck", "app": {"bundleId": "com.example.stuck"},
             "catalog": {"products": [{"productID": "com.example.stuck.pro", "type": "NonConsumable"}]},
             "tiers": {"pro": ["com.example.stuck.pro"]}, "accounts": {"a": {}},
             "cases": [{"id": "outside", "kind": "fresh-purchase", "account": "a", "steps": [
               {"action": "launch"}, {"action": "purchaseOutsideApp", "product": "com.example.stuck.pro"}]}]}
            """#.utf8).write(to: url)
        return url.path
    }

    @Test("settleLimit bounds how long the app may take over its updates: the step errors, naming the limit")
    func settleLimit() async throws {
        let path = try Self.matrixFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try await AppHarness.run(matrix: path, options: .unhurried(reportsDirectory: nil, settleLimit: .milliseconds(300))) { StuckApp() }
        let failure = try #require(result.failures.first)
        #expect(failure.step == 1 && failure.verdict == "error")
        #expect(failure.reason.contains("did not finish handling its Transaction.updates within 0.3 seconds"), "\(failure.reason)")
    }

    /// An app that finishes every update and grants what `currentEntitlements` holds.
    final class PlainApp: AppUnderTest, Sendable {
        let listener = Locked<Task<Void, Never>?>(nil)

        func launch() async throws {
            let task = Task {
                for await update in Transaction.updates {
                    if case .verified(let transaction) = update { await transaction.finish() }
                }
            }
            listener.withLock { $0 = task }
            _ = await StoreKitSession.waitForListener()
        }

        func quit() async { listener.withLock { $0 }?.cancel() }
        func restore() async throws -> AppRestoreReport? { nil }

        func entitledProductIDs() async -> Set<String> {
            var ids: Set<String> = []
            for await case .verified(let transaction) in Transaction.currentEntitlements { ids.insert(transaction.productID) }
            return ids
        }
    }

    @Test("signing: false leaves signed data out of the evidence; by default each step's transactions and notifications are signed")
    func unsigned() async throws {
        let path = try Self.matrixFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let signed = try await AppHarness.run(matrix: path, options: .unhurried(reportsDirectory: nil)) { PlainApp() }
        let unsigned = try await AppHarness.run(matrix: path, options: .unhurried(reportsDirectory: nil, signing: false)) { PlainApp() }
        #expect(signed.passed && unsigned.passed, "\(signed) \(unsigned)")
        #expect(signed.records.last?.observed?.signedData.map(\.kind) == ["transaction", "notification"])
        #expect(unsigned.records.last?.observed?.signedData == [])
        #expect(unsigned.records.last?.observed?.access == ["pro"])
    }
}
