// robustness: attacks that held up, kept as guards.
import Foundation
import Testing
import AppHarness
import SimulatedStoreKit
import StoreAppsHarness
import TestSupport

@Suite("App harness: what holds up")
struct HeldUpTests {
    static let release = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json").path

    @Test("Held up: the careful store at jobs 8 gives the same verdicts as at jobs 1, run after run")
    func parallelCasesAgree() async throws {
        let serial = try await HeavyWork.run { try await AppHarness.run(matrix: Self.release, options: .unhurried(reportsDirectory: nil, jobs: 1)) { CarefulStoreApp() } }
        for _ in 0..<3 {
            let parallel = try await HeavyWork.run { try await AppHarness.run(matrix: Self.release, options: .unhurried(reportsDirectory: nil, jobs: 8)) { CarefulStoreApp() } }
            #expect(parallel.records.map(\.verdict) == serial.records.map(\.verdict))
            #expect(parallel.records.map(\.observed?.access) == serial.records.map(\.observed?.access))
            #expect(parallel.failures.isEmpty, "\(parallel)")
        }
    }

    /// Finishes every transaction twice, and every update's transaction from the other loop too.
    final class DoubleFinishApp: ProbeApp {
        let probe = ProbeState()
        func handle(_ update: VerificationResult<Transaction>) async {
            await plainHandle(update)
            await update.unsafePayloadValue.finish()
        }
    }

    @Test("Held up: finish() twice, and on unverified transactions, changes nothing more")
    func doubleFinish() async throws {
        let path = try Probe.matrix(#"""
            [{"id": "twice", "kind": "consumable", "account": "a", "steps": [
               {"action": "launch"},
               {"action": "purchaseOutsideApp", "product": "com.example.storekitmatrix.coins100", "expect": {"balance": {"coins": 100}}},
               {"action": "relaunch", "expect": {"balance": {"coins": 100}}}]}]
            """#)
        let result = try await AppHarness.run(matrix: path, options: .unhurried(reportsDirectory: nil)) { DoubleFinishApp() }
        #expect(result.failures.isEmpty, "\(result)")
    }

    /// Grants a negative and an enormous balance, and thousands of product IDs.
    final class WildApp: ProbeApp {
        let probe = ProbeState()
        func balances() async -> [String: Int] { ["coins": Int.min, "gems": Int.max] }
        func entitledProductIDs() async -> Set<String> { Set((0..<5000).map { "x.\($0)" }).union([Probe.pro]) }
    }

    @Test("Held up: extreme balances and many granted IDs are judged and recorded, not crashed on")
    func wildValues() async throws {
        let path = try Probe.matrix(#"""
            [{"id": "wild", "kind": "consumable", "account": "a", "steps": [
               {"action": "launch", "expect": {"access": ["pro"], "balance": {"coins": 0}}}]}]
            """#)
        let reports = try MatrixBinary.scratchDirectory("wild")
        defer { try? FileManager.default.removeItem(at: reports) }
        let result = try await AppHarness.run(matrix: path, options: .unhurried(reportsDirectory: reports.path)) { WildApp() }
        #expect(result.failures.count == 1 && result.failures[0].reason.contains("balance.coins: expected 0, observed -9223372036854775808"), "\(result)")
    }
}
