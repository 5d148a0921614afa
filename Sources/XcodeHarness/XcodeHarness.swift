#if canImport(StoreKitTest)
import Foundation
@_exported import HarnessCore
@_exported import HarnessRunner
import MatrixEngine
import MatrixModel
import StoreKit
import StoreKitTest

// StoreKit Testing in Xcode exists only on Apple platforms: this file is not built on Linux. Everything it calls
// into (the case session, the decisions around SKTestSession in TestSessionStoreSide, the mapping of actions to
// App Store calls, the observation, the run directory) is built and tested on Linux (Tests/XcodeHarnessTests,
// Tests/HarnessCoreTests). What is here, the StoreKit and SKTestSession calls themselves, is type-checked on Linux
// against stand-ins that copy Apple's declarations (scripts/check-apple-branches.sh), never run there.

/// Runs a matrix against a team's own Store code on Apple's StoreKit under StoreKit Testing in Xcode: the
/// `xcode` environment, one case at a time (there is one test environment per process).
/// Apple: https://developer.apple.com/documentation/storekittest/sktestsession
public enum XcodeHarness {
    /// Runs every case of the matrix at `path` with `SKTestSession(configurationFileNamed:)` playing the App
    /// Store and the app `app` makes playing itself, and writes the standard run directory (`xcode/…`).
    ///
    /// - Parameters:
    ///   - path: the matrix: an absolute path, or a resource of the test bundle (`"release.json"`, found by its
    ///     file name too, since Xcode copies resources flat), or a path under the working directory. Its `catalog`
    ///     is read relative to the matrix file, or by its file name beside it: add the `.storekit` file to the
    ///     test target's resources too.
    ///   - configurationFile: the `.storekit` file's name, without extension, in the test bundle.
    ///   - bundle: where the matrix is looked for first (for instance `Bundle.module`); then every loaded bundle.
    ///   - options: a relative `reportsDirectory` (the default `reports`) is taken under the test host's
    ///     temporary directory, which it can write; the result's `runDirectory` names the run directory.
    /// - Throws: ``AppHarnessError`` when the matrix cannot be found or loaded, the configuration cannot be
    ///   opened, or the evidence cannot be written.
    public static func run(matrix path: String, configurationFile: String, bundle: Bundle? = nil,
                           options: HarnessOptions = HarnessOptions(),
                           app: @escaping @Sendable () -> any AppUnderTest) async throws -> AppHarnessResult {
        var options = options
        options.jobs = 1
        options.reportsDirectory = XcodeHarnessLocations.reportsDirectory(options.reportsDirectory)
        let matrixFile = try XcodeHarnessLocations.matrixFile(path, bundles: (bundle.map { [$0] } ?? []) + Bundle.allBundles)
        let side: TestSessionStoreSide
        do {
            side = TestSessionStoreSide(SKTestSessionControls(try SKTestSession(configurationFileNamed: configurationFile)))
        } catch {
            throw AppHarnessError("cannot open \(configurationFile).storekit: \(error). Add it to the test target's resources")
        }
        let settleLimit = options.settleLimit
        // StoreClock.now, TransactionUpdates and the default balances() answer as HarnessCore does, even when the
        // look-alike is linked into the same test process.
        return try await StoreTestingHooks.$bypassed.withValue(true) {
            try await run(matrixFile, options: options, side: side, settleLimit: settleLimit, app: app)
        }
    }

    private static func run(_ matrixFile: String, options: HarnessOptions, side: TestSessionStoreSide, settleLimit: Duration,
                            app: @escaping @Sendable () -> any AppUnderTest) async throws -> AppHarnessResult {
        try await HarnessRun.run(matrix: matrixFile, options: options, catalogBesideMatrix: true) { _, _ in
            StoreKitAdapter(EnvironmentDescription(.xcode, device: ProcessInfo.processInfo.environment["SIMULATOR_DEVICE_NAME"] ?? "StoreKit Testing",
                                                   os: ProcessInfo.processInfo.operatingSystemVersionString, clock: "xcode")) { matrixCase, matrix in
                try await side.reset(for: matrixCase, of: matrix)
                return StoreKitCaseSession(matrix: matrix, matrixCase: matrixCase, client: StoreKitFrameworkClient(), side: side, controls: side,
                                           install: app, settleLimit: settleLimit, now: { Int64(Date().timeIntervalSince1970 * 1000) })
            }
        }
    }

    #if canImport(Testing)
    /// ``run(matrix:configurationFile:bundle:options:app:)``, recording a Swift Testing issue at the matrix line
    /// of every step that did not pass.
    ///
    /// - Throws: as ``run(matrix:configurationFile:bundle:options:app:)``.
    @discardableResult
    public static func expectPasses(matrix path: String, configurationFile: String, bundle: Bundle? = nil,
                                    options: HarnessOptions = HarnessOptions(),
                                    app: @escaping @Sendable () -> any AppUnderTest) async throws -> AppHarnessResult {
        let result = try await run(matrix: path, configurationFile: configurationFile, bundle: bundle, options: options, app: app)
        result.recordIssues()
        return result
    }
    #endif
}

extension AppPurchaseRequest {
    /// The purchase options that ask for what the request names, with StoreKit's own options: `quantity`,
    /// `appAccountToken`, and a win-back offer of `product` named by the request (from iOS 18 and macOS 15). No
    /// option asks for the introductory offer, which applies by itself to an eligible customer. A promotional
    /// offer needs a signature made with the configuration's key, which only the app's server can make: it is not
    /// added here. The same member exists on the look-alike's `Product`, so a conformance compiles against both.
    /// Apple: https://developer.apple.com/documentation/storekit/product/purchaseoption,
    /// https://developer.apple.com/documentation/storekit/product/purchaseoption/winbackoffer(_:)
    public func options(for product: Product) -> Set<Product.PurchaseOption> {
        var options: Set<Product.PurchaseOption> = []
        if quantity != 1 { options.insert(.quantity(quantity)) }
        if let token = appAccountToken.flatMap(UUID.init(uuidString:)) { options.insert(.appAccountToken(token)) }
        if let offer, let subscription = product.subscription {
            if #available(iOS 18.0, macOS 15.0, *) {
                if let winBack = subscription.winBackOffers.first(where: { $0.id == offer }) { options.insert(.winBackOffer(winBack)) }
            }
        }
        return options
    }
}

extension AppUnderTest {
    /// Buys `request`'s product with `Product.products(for:)` and `purchase(options:)`, and reports what it
    /// answered (`success`, `pending`, `userCancelled`, or `failed` with StoreKit's error): the default for apps
    /// that implement only the other methods.
    /// - Throws: ``AppHarnessError`` when the store has no such product.
    public func purchase(_ request: AppPurchaseRequest) async throws -> AppPurchaseReport? {
        guard let product = try await Product.products(for: [request.productID]).first else {
            throw AppHarnessError("the store has no product \(request.productID)")
        }
        do {
            switch try await product.purchase(options: request.options(for: product)) {
            case .success(let verification):
                return AppPurchaseReport(result: "success", transactionId: String(verification.unsafePayloadValue.id))
            case .pending:
                return AppPurchaseReport(result: "pending")
            case .userCancelled:
                return AppPurchaseReport(result: "userCancelled")
            @unknown default:
                return AppPurchaseReport(result: "failed", message: "an unknown purchase result")
            }
        } catch let error as StoreKitError {
            if case .userCancelled = error { return AppPurchaseReport(result: "userCancelled", message: "\(error)") }
            return AppPurchaseReport(result: "failed", message: "\(error)")
        } catch let error as Product.PurchaseError {
            return AppPurchaseReport(result: "failed", message: "\(error)")
        }
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

    func result(of error: any Error) -> String? {
        if let error = error as? StoreKitError {
            if case .userCancelled = error { return "userCancelled" }
            return "failed"
        }
        return error is Product.PurchaseError ? "failed" : nil
    }
}

/// The one `SKTestSession` of the process, as the plain-valued controls ``TestSessionStoreSide`` drives.
/// `SKTestSession` is not `Sendable`; the harness runs one case at a time and calls it from one task at a time.
final class SKTestSessionControls: StoreKitTestControls, @unchecked Sendable {
    let session: SKTestSession

    init(_ session: SKTestSession) {
        self.session = session
    }

    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/resettodefaultstate(),
    /// https://developer.apple.com/documentation/storekittest/sktestsession/cleartransactions(),
    /// https://developer.apple.com/documentation/storekittest/sktestsession/disabledialogs
    func reset() {
        session.resetToDefaultState()
        session.clearTransactions()
        session.disableDialogs = true
    }

    var askToBuyEnabled: Bool {
        get { session.askToBuyEnabled }
        set { session.askToBuyEnabled = newValue }
    }

    var interruptedPurchasesEnabled: Bool {
        get { session.interruptedPurchasesEnabled }
        set { session.interruptedPurchasesEnabled = newValue }
    }

    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/billinggraceperiodisenabled
    var billingGracePeriodIsEnabled: Bool {
        get { session.billingGracePeriodIsEnabled }
        set { session.billingGracePeriodIsEnabled = newValue }
    }

    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/shouldenterbillingretryonrenewal
    var shouldEnterBillingRetryOnRenewal: Bool {
        get { session.shouldEnterBillingRetryOnRenewal }
        set { session.shouldEnterBillingRetryOnRenewal = newValue }
    }

    func setStorefront(_ code: String) {
        session.storefront = code
    }

    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/alltransactions()
    func transactions() -> [TestTransaction] {
        session.allTransactions().map { transaction in
            TestTransaction(identifier: transaction.identifier, productID: transaction.productIdentifier, purchaseDate: transaction.purchaseDate,
                            pendingAskToBuy: transaction.pendingAskToBuyConfirmation, hasPurchaseIssue: transaction.hasPurchaseIssue)
        }
    }

    /// `buyProduct(identifier:options:)` from iOS 17 and macOS 14, which returns the transaction; before, the
    /// older `buyProduct(productIdentifier:)`, which buys one and returns nothing, its transaction finished from
    /// `Transaction.unfinished`.
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/buyproduct(identifier:options:),
    /// https://developer.apple.com/documentation/storekittest/sktestsession/buyproduct(productidentifier:)
    func buyProduct(_ productID: String, quantity: Int, finish: Bool) async throws -> UInt64? {
        if #available(iOS 17.0, macOS 14.0, *) {
            let transaction = try await session.buyProduct(identifier: productID, options: quantity == 1 ? [] : [.quantity(quantity)])
            if finish { await transaction.finish() }
            return transaction.id
        }
        guard quantity == 1 else {
            throw AppStoreSideUnsupported("StoreKit Testing buys a quantity outside the app from iOS 17 and macOS 14 (buyProduct(identifier:options:))")
        }
        try session.buyProduct(productIdentifier: productID)
        if finish {
            for await case .verified(let transaction) in Transaction.unfinished where transaction.productID == productID {
                await transaction.finish()
            }
        }
        return nil
    }

    func approveAskToBuy(_ identifier: Int) throws {
        try session.approveAskToBuyTransaction(identifier: identifier)
    }

    func declineAskToBuy(_ identifier: Int) throws {
        try session.declineAskToBuyTransaction(identifier: identifier)
    }

    func resolveIssue(_ identifier: Int) throws {
        try session.resolveIssueForTransaction(identifier: identifier)
    }

    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/forcerenewalofsubscription(productidentifier:)
    func forceRenewal(_ productID: String) throws {
        try session.forceRenewalOfSubscription(productIdentifier: productID)
    }

    func setAutoRenew(_ willRenew: Bool, _ identifier: Int) throws {
        if willRenew {
            try session.enableAutoRenewForTransaction(identifier: identifier)
        } else {
            try session.disableAutoRenewForTransaction(identifier: identifier)
        }
    }

    func expire(_ productID: String) throws {
        try session.expireSubscription(productIdentifier: productID)
    }

    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/refundtransaction(identifier:)
    func refund(_ identifier: Int) throws {
        try session.refundTransaction(identifier: identifier)
    }

    func requestPriceIncreaseConsent(_ identifier: Int) throws {
        try session.requestPriceIncreaseConsentForTransaction(identifier: identifier)
    }

    func respondToPriceIncrease(consent: Bool, _ identifier: Int) throws {
        if consent {
            try session.consentToPriceIncreaseForTransaction(identifier: identifier)
        } else {
            try session.declinePriceIncreaseForTransaction(identifier: identifier)
        }
    }

    var canSimulateErrors: Bool {
        if #available(iOS 17.0, macOS 14.0, *) { return true }
        return false
    }

    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/setsimulatederror(_:forapi:)
    func setSimulatedError(_ failure: SimulatedFailure?, for api: SimulatedAPI) async throws {
        guard #available(iOS 17.0, macOS 14.0, *) else {
            throw AppStoreSideUnsupported("StoreKit Testing simulates StoreKit errors from iOS 17 and macOS 14 (setSimulatedError(_:forAPI:))")
        }
        try await Self.setSimulatedError(failure, for: api, on: session)
    }

    @available(iOS 17.0, macOS 14.0, *)
    private static func setSimulatedError(_ failure: SimulatedFailure?, for api: SimulatedAPI, on session: SKTestSession) async throws {
        switch api {
        case .loadProducts:
            let error: SKTestFailures.LoadProducts? = try failure.map { .generic(try storeKitError($0)) }
            try await session.setSimulatedError(error, forAPI: .loadProducts)
        case .appStoreSync:
            let error: SKTestFailures.AppStoreSync? = try failure.map { .generic(try storeKitError($0)) }
            try await session.setSimulatedError(error, forAPI: .appStoreSync)
        case .purchase:
            let error: SKTestFailures.Purchase? = try failure.map { failure in
                if case .purchase(let name) = failure {
                    guard let purchaseError = Product.PurchaseError.named(name) else { throw AppStoreSideUnsupported("no Product.PurchaseError \(name)") }
                    return .purchase(purchaseError)
                }
                return .generic(try storeKitError(failure))
            }
            try await session.setSimulatedError(error, forAPI: .purchase)
        case .verification:
            let error: SKTestFailures.Verification? = try failure.map { failure in
                guard case .verification(let name) = failure, let verificationError = verificationError(name) else {
                    throw AppStoreSideUnsupported("no VerificationResult.VerificationError \(failure)")
                }
                return .verification(verificationError)
            }
            try await session.setSimulatedError(error, forAPI: .verification)
        }
    }

    /// The `StoreKitError` a generic failure names. `unsupported` exists from iOS 18.4 and macOS 15.4.
    /// Apple: https://developer.apple.com/documentation/storekit/storekiterror,
    /// https://developer.apple.com/documentation/storekit/storekiterror/unsupported
    static func storeKitError(_ failure: SimulatedFailure) throws -> StoreKitError {
        guard case .generic(let name) = failure else { throw AppStoreSideUnsupported("no StoreKitError \(failure)") }
        switch name {
        case "unknown": return .unknown
        case "userCancelled": return .userCancelled
        case "networkError": return .networkError(URLError(.notConnectedToInternet))
        case "systemError": return .systemError(AppHarnessError("a system error set up by the step's failNext"))
        case "notAvailableInStorefront": return .notAvailableInStorefront
        case "notEntitled": return .notEntitled
        case "unsupported":
            if #available(iOS 18.4, macOS 15.4, *) { return .unsupported }
            throw AppStoreSideUnsupported("StoreKitError.unsupported exists from iOS 18.4 and macOS 15.4")
        default: throw AppStoreSideUnsupported("no StoreKitError \(name)")
        }
    }

    /// Apple: https://developer.apple.com/documentation/storekit/verificationresult/verificationerror
    static func verificationError(_ name: String) -> VerificationResult<Any>.VerificationError? {
        switch name {
        case "revokedCertificate": .revokedCertificate
        case "invalidCertificateChain": .invalidCertificateChain
        case "invalidDeviceVerification": .invalidDeviceVerification
        case "invalidEncoding": .invalidEncoding
        case "invalidSignature": .invalidSignature
        case "missingRequiredProperties": .missingRequiredProperties
        default: nil
        }
    }
}

extension Product.PurchaseError {
    /// The case a matrix names.
    /// Apple: https://developer.apple.com/documentation/storekit/product/purchaseerror
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
