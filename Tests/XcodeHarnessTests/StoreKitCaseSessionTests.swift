import Foundation
import Testing
import EvidenceStore
import HarnessCore
import LocalEnvironment
import MatrixEngine
import MatrixModel
import SimulatedStoreKit
import StoreAppsHarness
import StoreSimulator
import TestSupport
import XcodeHarness

/// The Xcode environment's case session (everything but the SKTestSession and StoreKit calls) run on Linux:
/// the look-alike plays StoreKit and the simulator plays SKTestSession. The release matrix through it with the
/// careful store observes what --env local observes, wherever an App Store with one account, one device and no
/// server notifications can perform the step.
@Suite("Xcode environment's case session, on the look-alike")
struct StoreKitCaseSessionTests {
    /// StoreKit on the case's one device, through the look-alike.
    struct LookAlikeClient: StoreKitClient, PurchaseControls {
        let device: StoreKitSession

        func currentEntitlements() async -> [Data] {
            await device.run {
                var items: [Data] = []
                for await case .verified(let transaction) in Transaction.currentEntitlements { items.append(transaction.jsonRepresentation) }
                return items
            }
        }

        func latestTransaction(for productID: String) async -> Data? {
            await device.run { await Transaction.latest(for: productID)?.unsafePayloadValue.jsonRepresentation }
        }

        func allTransactions() async -> [Data] {
            await device.run {
                var items: [Data] = []
                for await result in Transaction.all { items.append(result.unsafePayloadValue.jsonRepresentation) }
                return items
            }
        }

        func unfinishedCount() async -> Int {
            await device.run {
                var count = 0
                for await _ in Transaction.unfinished { count += 1 }
                return count
            }
        }

        func statuses(groupID: String) async throws -> [StoreKitStatus] {
            try await device.run {
                try await Product.SubscriptionInfo.status(for: groupID).map { status in
                    StoreKitStatus(state: status.state.description, renewalInfo: (try? status.renewalInfo.payloadValue)?.jsonRepresentation)
                }
            }
        }

        func isEligibleForIntroOffer(groupID: String) async -> Bool {
            await device.run { await Product.SubscriptionInfo.isEligibleForIntroOffer(for: groupID) }
        }

        func deliver() async {
            device.deliverPendingUpdates()
            _ = await device.settle()
        }

        func result(of error: any Error) -> String? {
            guard let error = error as? StoreKitError else { return error is Product.PurchaseError ? "failed" : nil }
            if case .userCancelled = error { return "userCancelled" }
            return "failed"
        }

        func setNextPurchaseOutcome(_ outcome: PurchaseOutcome) async throws { device.setNextPurchaseOutcome(outcome) }

        func failNext(_ failure: FailNext) async throws {
            guard let storeKitFailure = StoreKitFailure(failure) else { throw AppStoreSideUnsupported("no such failure") }
            device.failNext(failure.call, with: storeKitFailure)
        }

        func clearFailures() async { _ = device.takeUnmetFailures() }
    }

    static let release = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json").path

    /// An adapter whose cases run on a fresh simulated store with one device, through the Xcode session.
    static func adapter() -> StoreKitAdapter {
        StoreKitAdapter(EnvironmentDescription(.xcode, device: "look-alike", os: "n/a")) { matrixCase, matrix in
            let simulator = AppStoreSimulator(catalog: matrix.catalog, configuration: StoreConfiguration(matrix: matrix, case: matrixCase))
            try simulator.prepare(matrix.accounts.filter { $0.alias == matrixCase.account })
            let store = SimulatedStore(simulator, signer: nil)
            let device = StoreKitSession(store: store, deviceName: "\(matrixCase.account)/device-1", account: matrixCase.account)
            let client = LookAlikeClient(device: device)
            return StoreKitCaseSession(matrix: matrix, matrixCase: matrixCase, client: client, side: SimulatorStoreSide(store: store),
                                       controls: client, install: { BoundApp(CarefulStoreApp(), device: device) },
                                       settleLimit: .seconds(5), pollInterval: .zero, now: { store.withStore { $0.now } })
        }
    }

    @Test("the release matrix observes what --env local observes, step by step, where one account and one device can run it")
    func sameObservations() async throws {
        let matrix = try #require(try MatrixFile.read(Self.release).matrix)
        let context = RunContext(runID: "x", environment: "xcode", build: "b", device: "d", os: "o")
        let xcode = KeptRecords()
        _ = try await Runner(matrix: matrix, adapter: Self.adapter(), context: context).run(into: xcode)
        let local = KeptRecords()
        let localAdapter = try LocalAdapter(signing: false, environment: .app, app: .app { CarefulStoreApp() })
        _ = try await Runner(matrix: matrix, adapter: localAdapter, context: context).run(into: local)
        let (x, l) = (await xcode.records, await local.records)
        #expect(x.count == l.count)
        var compared = 0
        for (a, b) in zip(x, l) where a.verdict != .skipped && a.verdict != .blocked {
            guard let ao = a.observed, let bo = b.observed else { continue }
            compared += 1
            let where_ = "\(a.case) #\(a.step) \(a.action.action.rawValue)"
            #expect(ao.access == bo.access, "\(where_)")
            #expect(ao.entitlements == bo.entitlements, "\(where_)")
            #expect(ao.subscriptionStatus == bo.subscriptionStatus, "\(where_)")
            #expect(ao.balance == bo.balance, "\(where_)")
            #expect(ao.renewals == bo.renewals, "\(where_)")
            #expect(ao.eligibleForIntroOffer == bo.eligibleForIntroOffer, "\(where_)")
            // StoreKit leaves finished consumables out of Transaction.latest(for:); the store's own view keeps them.
            let consumables = Set(matrix.catalog.products.filter { $0.type == .consumable }.map(\.productID))
            #expect(ao.transactions == bo.transactions.filter { !consumables.contains($0.productId) }, "\(where_)")
            #expect(ao.renewalInfo == bo.renewalInfo, "\(where_)")
            #expect(ao.notifications == [] && ao.notObserved?.contains("notifications") == true, "no App Store Server Notifications in Xcode")
        }
        #expect(compared > 80, "most steps run with one account and one device: \(compared)")
        let skipped = x.filter { $0.verdict == .skipped }.compactMap(\.reason)
        #expect(skipped.allSatisfy { ["one account", "one device", "kill", "Family Sharing", "clock"].contains(where: $0.contains) }, "\(skipped)")
        #expect(x.allSatisfy { $0.verdict != .fail && $0.verdict != .error }, "\(x.filter { $0.verdict == .fail || $0.verdict == .error }.map { "\($0.case) #\($0.step): \($0.reason ?? "")" })")
    }
}

/// Runs an app's calls bound to the case's device, as the look-alike requires (StoreKit itself needs nothing).
final class BoundApp: AppUnderTest, Sendable {
    let app: any AppUnderTest
    let device: StoreKitSession

    init(_ app: any AppUnderTest, device: StoreKitSession) {
        self.app = app
        self.device = device
    }

    func launch() async throws { try await device.run { try await app.launch() } }
    func quit() async {
        await device.run { await app.quit() }
        device.endLaunch()
    }
    func purchase(_ request: AppPurchaseRequest) async throws -> AppPurchaseReport? { try await device.run { try await app.purchase(request) } }
    func restore() async throws -> AppRestoreReport? { try await device.run { try await app.restore() } }
    func entitledProductIDs() async -> Set<String> { await device.run { await app.entitledProductIDs() } }
    func balances() async -> [String: Int] { await device.run { await app.balances() } }
}

/// Keeps a run's records in memory.
actor KeptRecords: EvidenceSink {
    var records: [EvidenceRecord] = []
    func append(_ record: EvidenceRecord) async throws { records.append(record) }
}
