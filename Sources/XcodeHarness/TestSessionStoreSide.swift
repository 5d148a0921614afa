import Foundation
import HarnessCore
import MatrixEngine
import MatrixModel

/// One transaction of StoreKit Testing's environment (`SKTestTransaction`), as plain values.
/// Apple: https://developer.apple.com/documentation/storekittest/sktesttransaction
struct TestTransaction: Sendable, Hashable {
    /// `identifier`, what SKTestSession's transaction calls take.
    var identifier: Int
    /// `productIdentifier`.
    var productID: String
    /// `purchaseDate`.
    var purchaseDate: Date
    /// `pendingAskToBuyConfirmation`.
    var pendingAskToBuy: Bool
    /// `hasPurchaseIssue`.
    var hasPurchaseIssue: Bool
}

/// The StoreKit calls `SKTestSession.setSimulatedError(_:forAPI:)` can fail, as `FailableStoreKitAPI` names them.
/// Apple: https://developer.apple.com/documentation/storekittest/failablestorekitapi
enum SimulatedAPI: Sendable, Hashable, CaseIterable {
    case loadProducts, purchase, appStoreSync, verification
}

/// A failure for `setSimulatedError(_:forAPI:)`, by the name of the StoreKit error it is made of.
/// Apple: https://developer.apple.com/documentation/storekittest/sktestfailures
enum SimulatedFailure: Sendable, Hashable {
    /// `.generic(StoreKitError)`, by case name (`userCancelled`, `networkError`, …).
    case generic(String)
    /// `SKTestFailures.Purchase.purchase(Product.PurchaseError)`, by case name.
    case purchase(String)
    /// `SKTestFailures.Verification.verification(VerificationError)`, by case name.
    case verification(String)
}

/// The members of `SKTestSession` the `xcode` environment drives, in plain values, so that everything decided
/// around them (which transaction a step acts on, when Ask to Buy and billing retry are switched on, which failures
/// StoreKit Testing can simulate) is built and tested on Linux. `SKTestSessionControls` implements it on Apple
/// platforms; tests implement it with a recording fake.
/// Apple: https://developer.apple.com/documentation/storekittest/sktestsession
protocol StoreKitTestControls: AnyObject {
    /// `resetToDefaultState()`, `clearTransactions()`, and `disableDialogs` on.
    func reset()
    /// `askToBuyEnabled`: every purchase waits for approval while it is on.
    var askToBuyEnabled: Bool { get set }
    /// `interruptedPurchasesEnabled`.
    var interruptedPurchasesEnabled: Bool { get set }
    /// `billingGracePeriodIsEnabled`.
    var billingGracePeriodIsEnabled: Bool { get set }
    /// `shouldEnterBillingRetryOnRenewal`: every renewal of every subscription fails while it is on.
    var shouldEnterBillingRetryOnRenewal: Bool { get set }
    /// `storefront`, an ISO 3166-1 alpha-3 code.
    func setStorefront(_ code: String)
    /// `allTransactions()`, in no documented order.
    func transactions() -> [TestTransaction]
    /// A purchase outside the app (`buyProduct`); `finish` finishes its transaction, as an account that already
    /// owns the product has. - Returns: the transaction's id when StoreKit Testing reports it (iOS 17, macOS 14).
    /// - Throws: `AppStoreSideUnsupported` for a quantity StoreKit Testing cannot buy; StoreKit Testing's error.
    func buyProduct(_ productID: String, quantity: Int, finish: Bool) async throws -> UInt64?
    /// `approveAskToBuyTransaction(identifier:)`.
    func approveAskToBuy(_ identifier: Int) throws
    /// `declineAskToBuyTransaction(identifier:)`.
    func declineAskToBuy(_ identifier: Int) throws
    /// `resolveIssueForTransaction(identifier:)`.
    func resolveIssue(_ identifier: Int) throws
    /// `forceRenewalOfSubscription(productIdentifier:)`.
    func forceRenewal(_ productID: String) throws
    /// `enableAutoRenewForTransaction(identifier:)` or `disableAutoRenewForTransaction(identifier:)`.
    func setAutoRenew(_ willRenew: Bool, _ identifier: Int) throws
    /// `expireSubscription(productIdentifier:)`.
    func expire(_ productID: String) throws
    /// `refundTransaction(identifier:)`.
    func refund(_ identifier: Int) throws
    /// `requestPriceIncreaseConsentForTransaction(identifier:)`.
    func requestPriceIncreaseConsent(_ identifier: Int) throws
    /// `consentToPriceIncreaseForTransaction(identifier:)` or `declinePriceIncreaseForTransaction(identifier:)`.
    func respondToPriceIncrease(consent: Bool, _ identifier: Int) throws
    /// Whether `setSimulatedError(_:forAPI:)` exists here (iOS 17, macOS 14).
    var canSimulateErrors: Bool { get }
    /// `setSimulatedError(_:forAPI:)`; `nil` ends the failure. - Throws: `AppStoreSideUnsupported` for an error
    /// this OS cannot simulate; StoreKit Testing's error.
    func setSimulatedError(_ failure: SimulatedFailure?, for api: SimulatedAPI) async throws
}

/// StoreKit Testing playing the App Store: the mapping's calls (``AppStoreSide``) and the step's purchase sheet and
/// failures (``PurchaseControls``) on one `SKTestSession`. `SKTestSession` is not `Sendable`; the harness runs one
/// case at a time and calls this from one task at a time.
///
/// What StoreKit Testing offers and how it is used:
/// - Ask to Buy is session-wide (`askToBuyEnabled`): it is switched on for a case that asks for it only after the
///   account's pre-owned products are bought, and a `pending` purchase turns it on for its step only.
/// - A failed renewal is session-wide too (`shouldEnterBillingRetryOnRenewal` fails every renewal of every
///   subscription while on). `failRenewal` therefore records the product and switches the flag on only for the next
///   `renew` step of that product, around its forced renewal, and off when that step ends. A renewal StoreKit
///   Testing makes by itself at its `timeRate` in between is not the one that fails.
/// - StoreKit Testing's transaction list has no documented order: "the latest" transaction of a product is the one
///   with the latest purchase date (then the highest identifier), and with no product named, the account's only
///   auto-renewable subscription in the catalog, never a consumable.
/// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/shouldenterbillingretryonrenewal,
/// https://developer.apple.com/documentation/storekittest/sktestsession/asktobuyenabled,
/// https://developer.apple.com/documentation/storekittest/sktestsession/alltransactions()
final class TestSessionStoreSide: AppStoreSide, PurchaseControls, @unchecked Sendable {
    let controls: any StoreKitTestControls
    /// The case's store settings: Ask to Buy and a grace period.
    private(set) var caseAskToBuy = false
    private(set) var caseGracePeriod = false
    /// The catalog's auto-renewable subscriptions.
    private(set) var subscriptions: Set<String> = []
    /// The renewal `failRenewal` made fail: its product and grace period (`nil`: the case's).
    private(set) var failingRenewal: (productID: String, gracePeriod: Bool?)?
    /// Whether `shouldEnterBillingRetryOnRenewal` is on for this step.
    private(set) var billingRetryArmed = false
    /// The APIs a failure was simulated for in this step.
    private(set) var simulated: Set<SimulatedAPI> = []

    init(_ controls: any StoreKitTestControls) {
        self.controls = controls
    }

    /// A fresh test environment for a case: no transactions, no dialogs, the case's store settings, and what the
    /// account owns bought and finished, before Ask to Buy is switched on (an owned product needs no approval).
    /// - Throws: StoreKit Testing's error when a product the account owns cannot be bought.
    func reset(for matrixCase: MatrixCase, of matrix: Matrix) async throws {
        controls.reset()
        let settings = matrix.storeSettings(for: matrixCase)
        caseAskToBuy = settings.askToBuy ?? false
        caseGracePeriod = (settings.gracePeriodDays ?? 0) > 0
        subscriptions = Set(matrix.catalog.products.filter { $0.type == .autoRenewable }.map(\.productID))
        failingRenewal = nil
        billingRetryArmed = false
        simulated = []
        controls.askToBuyEnabled = false
        controls.interruptedPurchasesEnabled = false
        controls.shouldEnterBillingRetryOnRenewal = false
        controls.billingGracePeriodIsEnabled = caseGracePeriod
        if let storefront = settings.storefront { controls.setStorefront(storefront) }
        for productID in matrix.account(matrixCase.account)?.owns ?? [] {
            _ = try await controls.buyProduct(productID, quantity: 1, finish: true)
        }
        controls.askToBuyEnabled = caseAskToBuy
    }

    /// The subscription a step acts on: `productID`, or with none the account's only auto-renewable subscription.
    /// - Throws: ``AppStoreSideUnsupported`` when the account has several; `AdapterError` when it has none.
    func subscription(_ productID: String?) throws -> String {
        if let productID { return productID }
        let held = Set(controls.transactions().map(\.productID)).intersection(subscriptions).sorted()
        guard held.count <= 1 else {
            throw AppStoreSideUnsupported("the account has \(held.count) subscriptions (\(held.joined(separator: ", "))); name the step's product")
        }
        guard let only = held.first else { throw AdapterError("StoreKit Testing has no subscription of the account to act on") }
        return only
    }

    /// The latest transaction of `productID` (or, with none, of the account's only subscription) that satisfies
    /// `condition`: the latest purchase date, then the highest identifier. With `anyProduct`, a missing product
    /// means any product (a pending Ask to Buy request, an interrupted purchase).
    /// - Throws: `AdapterError` when there is none; ``AppStoreSideUnsupported`` from ``subscription(_:)``.
    func latest(_ productID: String?, anyProduct: Bool = false, where condition: (TestTransaction) -> Bool = { _ in true }) throws -> Int {
        let product = anyProduct ? productID : try subscription(productID)
        let candidates = controls.transactions().filter { (product == nil || $0.productID == product) && condition($0) }
        guard let transaction = candidates.max(by: { ($0.purchaseDate, $0.identifier) < ($1.purchaseDate, $1.identifier) }) else {
            throw AdapterError("StoreKit Testing has no transaction\(product.map { " of \($0)" } ?? "") to act on")
        }
        return transaction.identifier
    }

    // MARK: AppStoreSide — the mapping's calls, one SKTestSession call each

    func approveAskToBuy(account: String, productID: String?) throws -> [String] {
        try controls.approveAskToBuy(latest(productID, anyProduct: true) { $0.pendingAskToBuy })
        return []
    }

    func declineAskToBuy(account: String, productID: String?) throws {
        try controls.declineAskToBuy(latest(productID, anyProduct: true) { $0.pendingAskToBuy })
    }

    func resolveIssue(account: String, productID: String?) throws -> [String] {
        try controls.resolveIssue(latest(productID, anyProduct: true) { $0.hasPurchaseIssue })
        return []
    }

    func purchaseOutsideApp(account: String, productID: String, quantity: Int, offer: String?) async throws -> [String] {
        guard offer == nil else { throw AppStoreSideUnsupported("StoreKit Testing buys outside the app without offers") }
        guard !productID.isEmpty else { throw AdapterError("purchaseOutsideApp needs a product") }
        return try await controls.buyProduct(productID, quantity: quantity, finish: false).map { [String($0)] } ?? []
    }

    /// Forces `count` renewals. The first renewal of the product `failRenewal` named fails into billing retry.
    func renew(account: String, productID: String?, count: Int) throws {
        let product = try subscription(productID)
        if let failing = failingRenewal, failing.productID == product {
            guard count == 1 else {
                throw AppStoreSideUnsupported("after failRenewal StoreKit Testing renews one period at a time: the failed renewal enters billing retry")
            }
            failingRenewal = nil
            controls.billingGracePeriodIsEnabled = failing.gracePeriod ?? caseGracePeriod
            controls.shouldEnterBillingRetryOnRenewal = true
            billingRetryArmed = true
            try controls.forceRenewal(product)
            return
        }
        for _ in 0..<count { try controls.forceRenewal(product) }
    }

    func advanceTime(by duration: ISO8601Duration) throws {
        throw AppStoreSideUnsupported("StoreKit Testing cannot move time; its timeRate speeds renewals up")
    }

    func advanceTime(to point: TimePoint, account: String, productID: String?) throws {
        throw AppStoreSideUnsupported("StoreKit Testing cannot move time to \(point.rawValue); its timeRate speeds renewals up")
    }

    func setAutoRenew(_ willRenew: Bool, account: String, productID: String?) throws {
        try controls.setAutoRenew(willRenew, latest(productID))
    }

    func expire(account: String, productID: String?) throws {
        try controls.expire(subscription(productID))
    }

    /// Records that the product's next renewal fails; the next `renew` step of the product performs it.
    func failNextRenewal(account: String, productID: String?, gracePeriod: Bool?) throws {
        failingRenewal = (try subscription(productID), gracePeriod)
    }

    func recoverBilling(account: String, productID: String?) throws -> [String] {
        let product = try subscription(productID)
        let withIssue = try? latest(product) { $0.hasPurchaseIssue }
        try controls.resolveIssue(withIssue ?? latest(product))
        return []
    }

    func refund(account: String, productID: String, reason: Int) throws -> [String] {
        guard !productID.isEmpty else { throw AdapterError("refund needs a product") }
        try controls.refund(latest(productID))
        return []
    }

    func declineRefund(account: String, productID: String) throws {
        throw AppStoreSideUnsupported("StoreKit Testing approves every refund request")
    }

    func reverseRefund(account: String, productID: String) throws {
        throw AppStoreSideUnsupported("StoreKit Testing cannot reverse a refund")
    }

    func revokeFamilySharing(member: String, productID: String?) throws {
        throw AppStoreSideUnsupported("StoreKit Testing has no Family Sharing")
    }

    /// SKTestSession takes no price: the increase asks for consent at the price the configuration file gives
    /// the product, so `price` is not applied here.
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/requestpriceincreaseconsentfortransaction(identifier:)
    func requestPriceIncrease(account: String, productID: String?, price: String) throws {
        try controls.requestPriceIncreaseConsent(latest(productID))
    }

    func respondToPriceIncrease(consent: Bool, account: String, productID: String?) throws {
        try controls.respondToPriceIncrease(consent: consent, latest(productID))
    }

    func removeFromSale(productID: String) throws {
        throw AppStoreSideUnsupported("StoreKit Testing cannot take a product off sale")
    }

    func requestRefund(account: String, productID: String) throws {
        throw AppStoreSideUnsupported("StoreKit Testing has no App Store server to ask for consumption information")
    }

    func extendRenewalDate(account: String, productID: String?, days: Int) throws -> [String] {
        throw AppStoreSideUnsupported("StoreKit Testing has no App Store Server API to extend a renewal date")
    }

    func extendRenewalDatesForAllSubscribers(productID: String, days: Int, account: String) throws -> [String] {
        throw AppStoreSideUnsupported("StoreKit Testing has no App Store Server API to extend renewal dates")
    }

    func requestTestNotification(account: String) throws {
        throw AppStoreSideUnsupported("StoreKit Testing sends no App Store Server Notifications")
    }

    // MARK: PurchaseControls

    /// A pending purchase is Ask to Buy for the step; an interrupted one, interrupted purchases; a failed or
    /// cancelled one, a simulated `StoreKitError` (`unknown`, `userCancelled`) on the purchase: the app's
    /// `purchase(options:)` then throws it, where a customer's own cancel returns `.userCancelled`.
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/setsimulatederror(_:forapi:)
    func setNextPurchaseOutcome(_ outcome: PurchaseOutcome) async throws {
        switch outcome {
        case .success: break
        case .pending: controls.askToBuyEnabled = true
        case .interrupted: controls.interruptedPurchasesEnabled = true
        case .failed: try await simulate(.generic("unknown"), for: .purchase, doing: "fail a purchase")
        case .userCancelled: try await simulate(.generic("userCancelled"), for: .purchase, doing: "cancel a purchase sheet with dialogs off")
        }
    }

    /// The step's `failNext`, as `setSimulatedError(_:forAPI:)`.
    func failNext(_ failure: FailNext) async throws {
        guard failure.call.errorNames.contains(failure.error) else {
            throw AppStoreSideUnsupported("no \(failure.call.callName) error \(failure.error)")
        }
        switch failure.call {
        case .products: try await simulate(.generic(failure.error), for: .loadProducts, doing: "fail \(failure.call.callName)")
        case .sync: try await simulate(.generic(failure.error), for: .appStoreSync, doing: "fail \(failure.call.callName)")
        case .verification: try await simulate(.verification(failure.error), for: .verification, doing: "fail verification")
        case .purchase:
            let simulatedFailure: SimulatedFailure = StoreKitCall.purchaseErrors.contains(failure.error) ? .purchase(failure.error) : .generic(failure.error)
            try await simulate(simulatedFailure, for: .purchase, doing: "fail \(failure.call.callName)")
        }
    }

    private func simulate(_ failure: SimulatedFailure, for api: SimulatedAPI, doing what: String) async throws {
        guard controls.canSimulateErrors else {
            throw AppStoreSideUnsupported("StoreKit Testing can \(what) from iOS 17 and macOS 14 (setSimulatedError(_:forAPI:))")
        }
        try await controls.setSimulatedError(failure, for: api)
        simulated.insert(api)
    }

    /// Ends what the step set up: its simulated failures, Ask to Buy back to the case's setting, interrupted
    /// purchases off, and billing retry off after the renewal `failRenewal` made fail.
    func clearFailures() async {
        for api in SimulatedAPI.allCases where simulated.contains(api) {
            try? await controls.setSimulatedError(nil, for: api)
        }
        simulated = []
        controls.askToBuyEnabled = caseAskToBuy
        controls.interruptedPurchasesEnabled = false
        if billingRetryArmed {
            controls.shouldEnterBillingRetryOnRenewal = false
            controls.billingGracePeriodIsEnabled = caseGracePeriod
            billingRetryArmed = false
        }
    }
}
