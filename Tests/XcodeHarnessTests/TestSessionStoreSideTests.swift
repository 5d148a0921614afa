import Foundation
import HarnessCore
import MatrixEngine
import MatrixModel
import Testing
@testable import XcodeHarness

/// What the `xcode` environment decides around SKTestSession, run against a recording stand-in of its controls:
/// the order of a case's setup, which transaction a step acts on, when billing retry is on, and which outcomes
/// StoreKit Testing can simulate.
/// Apple: https://developer.apple.com/documentation/storekittest/sktestsession
@Suite("StoreKit Testing's App Store side, against recorded SKTestSession calls")
struct TestSessionStoreSideTests {
    /// Records every call, holds a transaction list, and answers as StoreKit Testing would.
    final class RecordingControls: StoreKitTestControls, @unchecked Sendable {
        var calls: [String] = []
        var list: [TestTransaction] = []
        var canSimulateErrors = true
        var askToBuyEnabled = false { didSet { calls.append("askToBuyEnabled=\(askToBuyEnabled)") } }
        var interruptedPurchasesEnabled = false { didSet { calls.append("interruptedPurchasesEnabled=\(interruptedPurchasesEnabled)") } }
        var billingGracePeriodIsEnabled = false { didSet { calls.append("billingGracePeriodIsEnabled=\(billingGracePeriodIsEnabled)") } }
        var shouldEnterBillingRetryOnRenewal = false {
            didSet { calls.append("shouldEnterBillingRetryOnRenewal=\(shouldEnterBillingRetryOnRenewal)") }
        }

        func reset() { calls.append("reset") }
        func setStorefront(_ code: String) { calls.append("storefront=\(code)") }
        func transactions() -> [TestTransaction] { list }
        func buyProduct(_ productID: String, quantity: Int, finish: Bool) async throws -> UInt64? {
            calls.append("buy \(productID) finish=\(finish)")
            return 7
        }
        func approveAskToBuy(_ identifier: Int) throws { calls.append("approve \(identifier)") }
        func declineAskToBuy(_ identifier: Int) throws { calls.append("decline \(identifier)") }
        func resolveIssue(_ identifier: Int) throws { calls.append("resolve \(identifier)") }
        func forceRenewal(_ productID: String) throws {
            calls.append("renew \(productID) billingRetry=\(shouldEnterBillingRetryOnRenewal)")
        }
        func setAutoRenew(_ willRenew: Bool, _ identifier: Int) throws { calls.append("autoRenew=\(willRenew) \(identifier)") }
        func expire(_ productID: String) throws { calls.append("expire \(productID)") }
        func refund(_ identifier: Int) throws { calls.append("refund \(identifier)") }
        func requestPriceIncreaseConsent(_ identifier: Int) throws { calls.append("priceIncrease \(identifier)") }
        func respondToPriceIncrease(consent: Bool, _ identifier: Int) throws { calls.append("consent=\(consent) \(identifier)") }
        func setSimulatedError(_ failure: SimulatedFailure?, for api: SimulatedAPI) async throws {
            calls.append("simulate \(failure.map { "\($0)" } ?? "nil") for \(api)")
        }
    }

    static let plus = "com.example.storekitmatrix.plus.monthly"
    static let premium = "com.example.storekitmatrix.premium.yearly"
    static let coins = "com.example.storekitmatrix.coins100"

    /// A matrix with two subscriptions and a consumable, and an account `owner` that owns the subscription `plus`.
    static func matrix(askToBuy: Bool = false, gracePeriodDays: Int = 0) throws -> Matrix {
        let json = """
            {
              "schemaVersion": 1,
              "name": "side",
              "app": {"bundleId": "com.example.app"},
              "catalog": {"products": [
                {"productID": "\(coins)", "type": "Consumable", "displayPrice": "0.99"}],
                "subscriptionGroups": [{"id": "g", "name": "Membership", "subscriptions": [
                  {"productID": "\(plus)", "type": "RecurringSubscription", "recurringSubscriptionPeriod": "P1M", "groupNumber": 2},
                  {"productID": "\(premium)", "type": "RecurringSubscription", "recurringSubscriptionPeriod": "P1Y", "groupNumber": 1}]}]},
              "tiers": {"plus": ["\(plus)"], "premium": ["\(premium)"]},
              "accounts": {"owner": {"owns": ["\(plus)"]}},
              "store": {"askToBuy": \(askToBuy), "gracePeriodDays": \(gracePeriodDays)},
              "cases": [{"id": "c", "kind": "purchase", "account": "owner", "steps": [{"action": "launch", "expect": {"access": ["plus"]}}]}]
            }
            """
        let result = MatrixLoader.load(Array(json.utf8), file: "side.json") { _ in .unreadable(reason: "inline catalog") }
        return try #require(result.matrix, "\(result.diagnostics.map(\.rendered))")
    }

    static func transaction(_ identifier: Int, _ productID: String, at seconds: TimeInterval, pendingAskToBuy: Bool = false,
                            hasPurchaseIssue: Bool = false) -> TestTransaction {
        TestTransaction(identifier: identifier, productID: productID, purchaseDate: Date(timeIntervalSince1970: seconds),
                        pendingAskToBuy: pendingAskToBuy, hasPurchaseIssue: hasPurchaseIssue)
    }

    /// A side reset for the matrix's case, with its calls so far forgotten.
    static func side(_ matrix: Matrix, _ controls: RecordingControls) async throws -> TestSessionStoreSide {
        let side = TestSessionStoreSide(controls)
        try await side.reset(for: try #require(matrix.cases.first), of: matrix)
        controls.calls = []
        return side
    }

    // Apple: https://developer.apple.com/documentation/storekittest/sktestsession/asktobuyenabled
    @Test("a case with Ask to Buy buys what the account owns first, then switches Ask to Buy on")
    func askToBuyAfterOwnedProducts() async throws {
        let controls = RecordingControls()
        let side = TestSessionStoreSide(controls)
        let matrix = try Self.matrix(askToBuy: true)
        try await side.reset(for: try #require(matrix.cases.first), of: matrix)
        let buy = try #require(controls.calls.firstIndex(of: "buy \(Self.plus) finish=true"))
        #expect(controls.calls.last == "askToBuyEnabled=true")
        #expect(controls.calls[..<buy].allSatisfy { !$0.hasPrefix("askToBuyEnabled=true") }, "\(controls.calls)")
        #expect(controls.calls.first == "reset")
    }

    @Test("a pending purchase turns Ask to Buy on for its step only; the case's own setting comes back after it")
    func pendingOnlyForItsStep() async throws {
        for caseAskToBuy in [false, true] {
            let controls = RecordingControls()
            let side = try await Self.side(try Self.matrix(askToBuy: caseAskToBuy), controls)
            try await side.setNextPurchaseOutcome(.pending)
            #expect(controls.askToBuyEnabled)
            await side.clearFailures()
            #expect(controls.askToBuyEnabled == caseAskToBuy)
            try await side.setNextPurchaseOutcome(.success)
            #expect(controls.askToBuyEnabled == caseAskToBuy)
        }
    }

    // Apple: https://developer.apple.com/documentation/storekittest/sktestsession/shouldenterbillingretryonrenewal
    @Test("failRenewal makes only the next renewal of its product fail: billing retry is on around that renewal and off after its step")
    func failRenewalIsOneRenewal() async throws {
        let controls = RecordingControls()
        let side = try await Self.side(try Self.matrix(gracePeriodDays: 16), controls)
        controls.list = [Self.transaction(1, Self.plus, at: 10), Self.transaction(2, Self.premium, at: 20)]
        try side.failNextRenewal(account: "owner", productID: Self.plus, gracePeriod: false)
        #expect(!controls.shouldEnterBillingRetryOnRenewal, "nothing is switched on before the renewal")
        try side.renew(account: "owner", productID: Self.premium, count: 1)
        #expect(controls.calls.last == "renew \(Self.premium) billingRetry=false", "another product renews")
        try side.renew(account: "owner", productID: Self.plus, count: 1)
        #expect(controls.calls.last == "renew \(Self.plus) billingRetry=true")
        #expect(controls.calls.contains("billingGracePeriodIsEnabled=false"), "the step's gracePeriod: false")
        await side.clearFailures()
        #expect(!controls.shouldEnterBillingRetryOnRenewal)
        #expect(controls.billingGracePeriodIsEnabled, "the case's 16-day grace period comes back")
        try side.renew(account: "owner", productID: Self.plus, count: 1)
        #expect(controls.calls.last == "renew \(Self.plus) billingRetry=false", "the renewal after that succeeds")
    }

    @Test("after failRenewal a renew of several periods is refused before anything renews")
    func failRenewalOnePeriodAtATime() async throws {
        let controls = RecordingControls()
        let side = try await Self.side(try Self.matrix(), controls)
        try side.failNextRenewal(account: "owner", productID: Self.plus, gracePeriod: nil)
        #expect(throws: AppStoreSideUnsupported.self) { try side.renew(account: "owner", productID: Self.plus, count: 3) }
        #expect(!controls.calls.contains { $0.hasPrefix("renew") })
    }

    // Apple: https://developer.apple.com/documentation/storekittest/sktestsession/alltransactions()
    @Test("the latest transaction is the latest purchase date, whatever order allTransactions() lists them in")
    func latestByDate() async throws {
        let controls = RecordingControls()
        let side = try await Self.side(try Self.matrix(), controls)
        let transactions = [Self.transaction(5, Self.plus, at: 300), Self.transaction(9, Self.plus, at: 100), Self.transaction(3, Self.plus, at: 200)]
        for order in [transactions, transactions.reversed()] {
            controls.list = order
            #expect(try side.latest(Self.plus) == 5)
        }
        controls.list = [Self.transaction(4, Self.plus, at: 100), Self.transaction(8, Self.plus, at: 100)]
        #expect(try side.latest(Self.plus) == 8, "equal dates: the highest identifier")
    }

    @Test("with no product named, a step acts on the account's subscription, never a newer consumable")
    func noProductMeansTheSubscription() async throws {
        let controls = RecordingControls()
        let side = try await Self.side(try Self.matrix(), controls)
        controls.list = [Self.transaction(1, Self.plus, at: 100), Self.transaction(2, Self.coins, at: 500)]
        try side.setAutoRenew(false, account: "owner", productID: nil)
        try side.refund(account: "owner", productID: Self.coins, reason: 0)
        try side.expire(account: "owner", productID: nil)
        #expect(controls.calls == ["autoRenew=false 1", "refund 2", "expire \(Self.plus)"])
        controls.list.append(Self.transaction(3, Self.premium, at: 600))
        #expect(throws: AppStoreSideUnsupported.self) { try side.setAutoRenew(true, account: "owner", productID: nil) }
        controls.list = [Self.transaction(2, Self.coins, at: 500)]
        #expect(throws: AdapterError.self) { try side.expire(account: "owner", productID: nil) }
    }

    @Test("an Ask to Buy answer acts on the pending request of any product")
    func askToBuyAnswer() async throws {
        let controls = RecordingControls()
        let side = try await Self.side(try Self.matrix(), controls)
        controls.list = [Self.transaction(1, Self.plus, at: 100), Self.transaction(2, Self.coins, at: 200, pendingAskToBuy: true)]
        _ = try side.approveAskToBuy(account: "owner", productID: nil)
        #expect(controls.calls == ["approve 2"])
    }

    // Apple: https://developer.apple.com/documentation/storekittest/sktestsession/setsimulatederror(_:forapi:)
    @Test("a cancelled purchase is StoreKitError.userCancelled simulated on the purchase, and unsupported where setSimulatedError is missing")
    func cancelledPurchase() async throws {
        let controls = RecordingControls()
        let side = try await Self.side(try Self.matrix(), controls)
        try await side.setNextPurchaseOutcome(.userCancelled)
        #expect(controls.calls == ["simulate generic(\"userCancelled\") for purchase"])
        await side.clearFailures()
        #expect(controls.calls.contains("simulate nil for purchase"))
        controls.canSimulateErrors = false
        await #expect(throws: AppStoreSideUnsupported.self) { try await side.setNextPurchaseOutcome(.userCancelled) }
        await #expect(throws: AppStoreSideUnsupported.self) { try await side.failNext(FailNext(call: .sync, error: "networkError")) }
    }

    @Test("failNext maps a purchase error to SKTestFailures.Purchase.purchase and a StoreKit error to .generic")
    func failNextMapping() async throws {
        let controls = RecordingControls()
        let side = try await Self.side(try Self.matrix(), controls)
        try await side.failNext(FailNext(call: .purchase, error: "invalidQuantity"))
        try await side.failNext(FailNext(call: .purchase, error: "networkError"))
        try await side.failNext(FailNext(call: .verification, error: "invalidSignature"))
        #expect(controls.calls == ["simulate purchase(\"invalidQuantity\") for purchase", "simulate generic(\"networkError\") for purchase",
                                   "simulate verification(\"invalidSignature\") for verification"])
        await #expect(throws: AppStoreSideUnsupported.self) { try await side.failNext(FailNext(call: .products, error: "invalidQuantity")) }
    }
}
