import EvidenceStore
import Foundation
import HarnessCore
import MatrixEngine
import MatrixModel
import TestSupport
import Testing
import XcodeHarness

/// The failures a step sets up on StoreKit Testing end with the step, before the next one starts.
/// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/setsimulatederror(_:forapi:)
@Suite("Xcode environment: a step's failures end with the step")
struct StepFailuresTests {
    /// Records the order of the controls' calls; answers every read with nothing.
    final class Recorder: StoreKitClient, PurchaseControls, AppStoreSide, @unchecked Sendable {
        let log = Log()
        actor Log {
            var calls: [String] = []
            func add(_ call: String) { calls.append(call) }
        }
        func currentEntitlements() async -> [Data] { [] }
        func latestTransaction(for productID: String) async -> Data? { nil }
        func allTransactions() async -> [Data] { [] }
        func unfinishedCount() async -> Int { 0 }
        func statuses(groupID: String) async throws -> [StoreKitStatus] { [] }
        func isEligibleForIntroOffer(groupID: String) async -> Bool { true }
        func deliver() async {}
        func result(of error: any Error) -> String? { nil }
        func setNextPurchaseOutcome(_ outcome: PurchaseOutcome) async throws {}
        func failNext(_ failure: FailNext) async throws { await log.add("failNext \(failure.error)") }
        /// Takes its time, as a call into StoreKit Testing does: a clear left to run on its own lands late.
        func clearFailures() async {
            try? await Task.sleep(for: .milliseconds(100))
            await log.add("clear")
        }
        func approveAskToBuy(account: String, productID: String?) async throws -> [String] { [] }
        func declineAskToBuy(account: String, productID: String?) async throws {}
        func resolveIssue(account: String, productID: String?) async throws -> [String] { [] }
        func purchaseOutsideApp(account: String, productID: String, quantity: Int, offer: String?) async throws -> [String] { [] }
        func renew(account: String, productID: String?, count: Int) async throws {}
        func advanceTime(by duration: ISO8601Duration) async throws {}
        func advanceTime(to point: TimePoint, account: String, productID: String?) async throws {}
        func setAutoRenew(_ willRenew: Bool, account: String, productID: String?) async throws {}
        func expire(account: String, productID: String?) async throws {}
        func failNextRenewal(account: String, productID: String?, gracePeriod: Bool?) async throws {}
        func recoverBilling(account: String, productID: String?) async throws -> [String] { [] }
        func refund(account: String, productID: String, reason: Int) async throws -> [String] { [] }
        func declineRefund(account: String, productID: String) async throws {}
        func reverseRefund(account: String, productID: String) async throws {}
        func revokeFamilySharing(member: String, productID: String?) async throws {}
        func requestPriceIncrease(account: String, productID: String?, price: String) async throws {}
        func respondToPriceIncrease(consent: Bool, account: String, productID: String?) async throws {}
        func removeFromSale(productID: String) async throws {}
        func requestRefund(account: String, productID: String) async throws {}
        func extendRenewalDate(account: String, productID: String?, days: Int) async throws -> [String] { [] }
        func extendRenewalDatesForAllSubscribers(productID: String, days: Int, account: String) async throws -> [String] { [] }
        func requestTestNotification(account: String) async throws {}
    }

    final class QuietApp: AppUnderTest {
        func launch() async throws {}
        func quit() async {}
        func purchase(_ request: AppPurchaseRequest) async throws -> AppPurchaseReport? { nil }
        func restore() async throws -> AppRestoreReport? { nil }
        func entitledProductIDs() async -> Set<String> { [] }
    }

    @Test("the failure a step set up is cleared before perform returns, so it cannot outlive the step or clear the next one's")
    func clearedWithinTheStep() async throws {
        let path = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json").path
        let matrix: Matrix = try #require(try MatrixFile.read(path).matrix)
        // A case StoreKit Testing can run: on its own clock, with no Family Sharing.
        let runnable = matrix.cases.filter { (matrixCase: MatrixCase) -> Bool in
            let family = matrix.accounts.contains { $0.familyOrganizer == matrixCase.account }
            return matrix.storeSettings(for: matrixCase).clock == nil && matrix.account(matrixCase.account)?.familyOrganizer == nil && !family
        }
        let matrixCase = try #require(runnable.first)
        let recorder = Recorder()
        let session = StoreKitCaseSession(matrix: matrix, matrixCase: matrixCase, client: recorder, side: recorder, controls: recorder,
                                          install: { QuietApp() }, settleLimit: .milliseconds(10), pollInterval: .zero, now: { 0 })
        for (index, error) in ["networkError", "notEntitled"].enumerated() {
            _ = try await session.perform(Step(action: .observe, failNext: FailNext(call: .products, error: error)), index: index)
            let calls = await recorder.log.calls
            #expect(calls.last == "clear", "step \(index): \(calls)")
        }
        let calls = await recorder.log.calls
        #expect(calls == ["failNext networkError", "clear", "failNext notEntitled", "clear"])
    }
}
