#if canImport(StoreKitTest)
import Foundation
import HarnessCore
import HarnessRunner
import MatrixEngine
import MatrixModel
import StoreKit
import StoreKitTest

// StoreKit Testing in Xcode exists only on Apple platforms: this file is not built on Linux. Everything it calls
// into (the case session, the mapping of actions to App Store calls, the observation, the run directory) is
// built and tested on Linux (Tests/XcodeHarnessTests, Tests/HarnessCoreTests); what is here is the StoreKit and
// SKTestSession calls themselves.

/// Runs a matrix against a team's own Store code on Apple's StoreKit under StoreKit Testing in Xcode: the
/// `xcode` environment, one case at a time (there is one test environment per process).
/// Apple: https://developer.apple.com/documentation/storekittest/sktestsession
public enum XcodeHarness {
    /// Runs every case of the matrix at `path` with `SKTestSession(configurationFileNamed:)` playing the App
    /// Store and the app `app` makes playing itself, and writes the standard run directory (`xcode/…`).
    ///
    /// - Parameter configurationFile: the `.storekit` file's name, without extension, in the test bundle.
    /// - Throws: ``AppHarnessError`` when the matrix cannot be loaded, the configuration cannot be opened, or
    ///   the evidence cannot be written.
    public static func run(matrix path: String, configurationFile: String, options: HarnessOptions = HarnessOptions(),
                           app: @escaping @Sendable () -> any AppUnderTest) async throws -> AppHarnessResult {
        var options = options
        options.jobs = 1
        let box: TestSessionBox
        do {
            box = TestSessionBox(try SKTestSession(configurationFileNamed: configurationFile))
        } catch {
            throw AppHarnessError("cannot open \(configurationFile).storekit: \(error)")
        }
        let settleLimit = options.settleLimit
        return try await HarnessRun.run(matrix: path, options: options) { _, _ in
            StoreKitAdapter(EnvironmentDescription(.xcode, device: ProcessInfo.processInfo.environment["SIMULATOR_DEVICE_NAME"] ?? "StoreKit Testing",
                                                   os: ProcessInfo.processInfo.operatingSystemVersionString, clock: "xcode")) { matrixCase, matrix in
                try await box.reset(for: matrixCase, of: matrix)
                return StoreKitCaseSession(matrix: matrix, matrixCase: matrixCase, client: StoreKitFrameworkClient(), side: box, controls: box,
                                           install: app, settleLimit: settleLimit, now: { Int64(Date().timeIntervalSince1970 * 1000) })
            }
        }
    }

    #if canImport(Testing)
    /// ``run(matrix:configurationFile:options:app:)``, recording a Swift Testing issue at the matrix line of
    /// every step that did not pass.
    @discardableResult
    public static func expectPasses(matrix path: String, configurationFile: String, options: HarnessOptions = HarnessOptions(),
                                    app: @escaping @Sendable () -> any AppUnderTest) async throws -> AppHarnessResult {
        let result = try await run(matrix: path, configurationFile: configurationFile, options: options, app: app)
        result.recordIssues()
        return result
    }
    #endif
}

/// The app's clock under StoreKit Testing: the wall clock, which `timeRate` speeds up for renewals.
public enum StoreClock {
    public static var now: Date { Date() }
}

/// What the look-alike's `StoreKitSession` offers app conformances, under StoreKit Testing.
public enum StoreKitSession {
    /// StoreKit gives no signal that a listener started: yields, then waits 200 ms.
    @discardableResult
    public static func waitForListener(within limit: Duration = .seconds(10)) async -> Bool {
        await Task.yield()
        try? await Task.sleep(for: .milliseconds(200))
        return true
    }
}

extension AppPurchaseRequest {
    /// The purchase options that ask for what the request names: quantity and app account token. A matrix offer
    /// needs a signed promotional offer, which StoreKit Testing checks against the configuration's key.
    public var options: Set<Product.PurchaseOption> {
        var options: Set<Product.PurchaseOption> = []
        if quantity != 1 { options.insert(.quantity(quantity)) }
        if let token = appAccountToken.flatMap(UUID.init(uuidString:)) { options.insert(.appAccountToken(token)) }
        return options
    }
}

/// StoreKit as the app reads it.
struct StoreKitFrameworkClient: StoreKitClient {
    func currentEntitlements() async -> [Data] {
        var items: [Data] = []
        for await case .verified(let transaction) in Transaction.currentEntitlements { items.append(transaction.jsonRepresentation) }
        return items
    }

    func latestTransaction(for productID: String) async -> Data? {
        await Transaction.latest(for: productID)?.unsafePayloadValue.jsonRepresentation
    }

    func allTransactions() async -> [Data] {
        var items: [Data] = []
        for await result in Transaction.all { items.append(result.unsafePayloadValue.jsonRepresentation) }
        return items
    }

    func unfinishedCount() async -> Int {
        var count = 0
        for await _ in Transaction.unfinished { count += 1 }
        return count
    }

    func statuses(groupID: String) async throws -> [StoreKitStatus] {
        try await Product.SubscriptionInfo.status(for: groupID).map { status in
            let state = switch status.state {
            case .subscribed: "subscribed"
            case .expired: "expired"
            case .inBillingRetryPeriod: "inBillingRetryPeriod"
            case .inGracePeriod: "inGracePeriod"
            case .revoked: "revoked"
            default: "unknown"
            }
            return StoreKitStatus(state: state, renewalInfo: (try? status.renewalInfo.payloadValue)?.jsonRepresentation)
        }
    }

    func isEligibleForIntroOffer(groupID: String) async -> Bool {
        await Product.SubscriptionInfo.isEligibleForIntroOffer(for: groupID)
    }

    func deliver() async {}
}

/// The one `SKTestSession` of the process, playing the App Store. `SKTestSession` is not `Sendable`; the
/// harness runs one case at a time and calls it from one task at a time.
final class TestSessionBox: AppStoreSide, PurchaseControls, @unchecked Sendable {
    let session: SKTestSession

    init(_ session: SKTestSession) {
        self.session = session
    }

    /// A fresh test environment for a case: no transactions, no dialogs, the case's store settings, and what the
    /// account owns bought and finished.
    func reset(for matrixCase: MatrixCase, of matrix: Matrix) async throws {
        session.resetToDefaultState()
        session.clearTransactions()
        session.disableDialogs = true
        let settings = matrix.storeSettings(for: matrixCase)
        session.askToBuyEnabled = settings.askToBuy ?? false
        session.billingGracePeriodIsEnabled = (settings.gracePeriodDays ?? 0) > 0
        if let storefront = settings.storefront { session.storefront = storefront }
        for productID in matrix.account(matrixCase.account)?.owns ?? [] {
            let transaction = try await session.buyProduct(identifier: productID, options: [])
            await transaction.finish()
        }
    }

    /// The latest test transaction of `productID` (or of any auto-renewable subscription) matching `condition`.
    func latest(_ productID: String?, _ condition: (SKTestTransaction) -> Bool = { _ in true }) throws -> Int {
        let candidates = session.allTransactions().filter { productID == nil || $0.productIdentifier == productID }.filter(condition)
        guard let transaction = candidates.last else {
            throw AdapterError("StoreKit Testing has no transaction\(productID.map { " of \($0)" } ?? "") to act on")
        }
        return transaction.identifier
    }

    // MARK: AppStoreSide — the mapping's calls, one SKTestSession call each

    func approveAskToBuy(account: String, productID: String?) throws -> [String] {
        try session.approveAskToBuyTransaction(identifier: latest(productID) { $0.pendingAskToBuyConfirmation })
        return []
    }

    func declineAskToBuy(account: String, productID: String?) throws {
        try session.declineAskToBuyTransaction(identifier: latest(productID) { $0.pendingAskToBuyConfirmation })
    }

    func resolveIssue(account: String, productID: String?) throws -> [String] {
        try session.resolveIssueForTransaction(identifier: latest(productID) { $0.hasPurchaseIssue })
        return []
    }

    func purchaseOutsideApp(account: String, productID: String, quantity: Int, offer: String?) async throws -> [String] {
        guard offer == nil else { throw AppStoreSideUnsupported("StoreKit Testing buys outside the app without offers") }
        let transaction = try await session.buyProduct(identifier: productID, options: quantity == 1 ? [] : [.quantity(quantity)])
        return [String(transaction.id)]
    }

    func renew(account: String, productID: String?, count: Int) throws {
        guard let productID else { throw AppStoreSideUnsupported("name the subscription to renew (SKTestSession renews by product)") }
        for _ in 0..<count { try session.forceRenewalOfSubscription(productIdentifier: productID) }
    }

    func advanceTime(by duration: ISO8601Duration) throws {
        throw AppStoreSideUnsupported("StoreKit Testing cannot move time; its timeRate speeds renewals up")
    }

    func advanceTime(to point: TimePoint, account: String, productID: String?) throws {
        throw AppStoreSideUnsupported("StoreKit Testing cannot move time to \(point.rawValue); its timeRate speeds renewals up")
    }

    func setAutoRenew(_ willRenew: Bool, account: String, productID: String?) throws {
        let identifier = try latest(productID)
        if willRenew {
            try session.enableAutoRenewForTransaction(identifier: identifier)
        } else {
            try session.disableAutoRenewForTransaction(identifier: identifier)
        }
    }

    func expire(account: String, productID: String?) throws {
        guard let productID else { throw AppStoreSideUnsupported("name the subscription to expire (SKTestSession expires by product)") }
        try session.expireSubscription(productIdentifier: productID)
    }

    func failNextRenewal(account: String, productID: String?, gracePeriod: Bool?) throws {
        if let gracePeriod { session.billingGracePeriodIsEnabled = gracePeriod }
        session.shouldEnterBillingRetryOnRenewal = true
    }

    func recoverBilling(account: String, productID: String?) throws -> [String] {
        session.shouldEnterBillingRetryOnRenewal = false
        try session.resolveIssueForTransaction(identifier: latest(productID))
        return []
    }

    func refund(account: String, productID: String, reason: Int) throws -> [String] {
        try session.refundTransaction(identifier: latest(productID))
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
        try session.requestPriceIncreaseConsentForTransaction(identifier: latest(productID))
    }

    func respondToPriceIncrease(consent: Bool, account: String, productID: String?) throws {
        let identifier = try latest(productID)
        if consent {
            try session.consentToPriceIncreaseForTransaction(identifier: identifier)
        } else {
            try session.declinePriceIncreaseForTransaction(identifier: identifier)
        }
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

    func setNextPurchaseOutcome(_ outcome: PurchaseOutcome) async throws {
        session.askToBuyEnabled = outcome == .pending
        session.interruptedPurchasesEnabled = outcome == .interrupted
        switch outcome {
        case .success, .pending, .interrupted: break
        case .failed: try await session.setSimulatedError(.generic(.unknown), forAPI: .purchase)
        case .userCancelled: throw AppStoreSideUnsupported("StoreKit Testing with dialogs off cannot cancel a purchase sheet")
        }
    }

    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/setsimulatederror(_:forapi:)
    func failNext(_ failure: FailNext) async throws {
        switch failure.call {
        case .products:
            try await session.setSimulatedError(.generic(try Self.storeKitError(failure.error)), forAPI: .loadProducts)
        case .sync:
            try await session.setSimulatedError(.generic(try Self.storeKitError(failure.error)), forAPI: .appStoreSync)
        case .purchase:
            if let error = Product.PurchaseError.named(failure.error) {
                try await session.setSimulatedError(.purchase(error), forAPI: .purchase)
            } else {
                try await session.setSimulatedError(.generic(try Self.storeKitError(failure.error)), forAPI: .purchase)
            }
        case .verification:
            let error: SKTestFailures.Verification = switch failure.error {
            case "revokedCertificate": .verification(.revokedCertificate)
            case "invalidCertificateChain": .verification(.invalidCertificateChain)
            case "invalidDeviceVerification": .verification(.invalidDeviceVerification)
            case "invalidEncoding": .verification(.invalidEncoding)
            case "invalidSignature": .verification(.invalidSignature)
            default: .verification(.missingRequiredProperties)
            }
            try await session.setSimulatedError(error, forAPI: .verification)
        }
    }

    func clearFailures() async {
        try? await session.setSimulatedError(nil, forAPI: .loadProducts)
        try? await session.setSimulatedError(nil, forAPI: .purchase)
        try? await session.setSimulatedError(nil, forAPI: .appStoreSync)
        try? await session.setSimulatedError(nil, forAPI: .verification)
        session.askToBuyEnabled = false
        session.interruptedPurchasesEnabled = false
    }

    static func storeKitError(_ name: String) throws -> StoreKitError {
        switch name {
        case "unknown": .unknown
        case "userCancelled": .userCancelled
        case "networkError": .networkError(URLError(.notConnectedToInternet))
        case "systemError": .systemError(AppHarnessError("a system error set up by the step's failNext"))
        case "notAvailableInStorefront": .notAvailableInStorefront
        case "notEntitled": .notEntitled
        case "unsupported": .unsupported
        default: throw AppStoreSideUnsupported("no StoreKitError \(name)")
        }
    }
}

extension Product.PurchaseError {
    /// The case a matrix names.
    static func named(_ name: String) -> Product.PurchaseError? {
        switch name {
        case "invalidQuantity": .invalidQuantity
        case "productUnavailable": .productUnavailable
        case "purchaseNotAllowed": .purchaseNotAllowed
        case "ineligibleForOffer": .ineligibleForOffer
        case "invalidOfferIdentifier": .invalidOfferIdentifier
        case "invalidOfferPrice": .invalidOfferPrice
        case "invalidOfferSignature": .invalidOfferSignature
        case "missingOfferParameters": .missingOfferParameters
        default: nil
        }
    }
}
#endif
