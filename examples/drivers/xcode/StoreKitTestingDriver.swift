// Not compiled by this package: an Xcode test target builds it (see README.md).
import DriverKit
import Foundation
import MatrixCore
import StoreKit
import StoreKitTest

/// What the driver needs from the app under test; implement it in the test target with the app's store.
protocol AppUnderTest: AnyObject {
    /// Starts the app's `Transaction.updates` listener and loads entitlements, as at launch.
    func launch() async
    /// Stops the listener and forgets in-memory state, as when the app quits.
    func quit() async
    /// Buys through the app's own purchase path; returns `success`, `userCancelled`, `pending` or `failed`.
    func purchase(productID: String) async throws -> String
    /// The app's Restore Purchases; returns `restored`, `nothingToRestore` or `failed`.
    func restore() async -> String
    /// The tiers the app grants now.
    var access: [String] { get async }
}

/// A driver for StoreKit Testing in Xcode: `SKTestSession` plays the App Store, the app plays itself.
final class StoreKitTestingDriver: Driver {
    let app: AppUnderTest
    let configurationFile: String
    var session: SKTestSession?

    init(app: AppUnderTest, configurationFile: String) {
        self.app = app
        self.configurationFile = configurationFile
    }

    func initialize(_ params: InitializeParams) async throws -> InitializeResult {
        do {
            session = try SKTestSession(configurationFileNamed: configurationFile)
        } catch {
            throw DriverError.unavailable("cannot open \(configurationFile).storekit: \(error)")
        }
        let device = ProcessInfo.processInfo.environment["SIMULATOR_DEVICE_NAME"] ?? "unknown device"
        return InitializeResult(environment: "xcode", actions: [.launch, .relaunch, .quit, .purchase, .purchaseOutsideApp, .restore,
                                                               .refund, .expire, .renew, .approveAskToBuy, .declineAskToBuy,
                                                               .disableAutoRenew, .enableAutoRenew, .resolveIssue, .observe],
                                device: device, os: "iOS " + ProcessInfo.processInfo.operatingSystemVersionString, clock: "xcode")
    }

    func reset(_ params: ResetParams) async throws {
        guard let session else { throw DriverError.unavailable("no session") }
        await app.quit()
        session.resetToDefaultState()
        session.clearTransactions()
        session.disableDialogs = true
        session.askToBuyEnabled = params.store.askToBuy
        session.storefront = params.store.storefront
        for productID in params.account.owns {
            try session.buyProduct(productIdentifier: productID)
        }
    }

    func perform(_ params: PerformParams, progress: DriverProgress) async throws -> PerformResult {
        guard let session else { throw DriverError.unavailable("no session") }
        let step = params.step
        let product = step.product ?? ""
        var result: String?
        switch step.action {
        case .launch: await app.launch()
        case .relaunch: await app.quit(); await app.launch()
        case .quit: await app.quit()
        case .purchase: result = try await app.purchase(productID: product)
        case .purchaseOutsideApp: try session.buyProduct(productIdentifier: product)
        case .restore: result = await app.restore()
        case .refund: try session.refundTransaction(identifier: latest(product, in: session))
        case .expire: try session.expireSubscription(productIdentifier: product)
        case .renew:
            for _ in 0..<(step.count ?? 1) { try session.forceRenewalOfSubscription(productIdentifier: product) }
        case .approveAskToBuy: try session.approveAskToBuyTransaction(identifier: latest(product, in: session))
        case .declineAskToBuy: try session.declineAskToBuyTransaction(identifier: latest(product, in: session))
        case .disableAutoRenew: try session.disableAutoRenewForTransaction(identifier: latest(product, in: session))
        case .enableAutoRenew: try session.enableAutoRenewForTransaction(identifier: latest(product, in: session))
        case .resolveIssue: try session.resolveIssueForTransaction(identifier: latest(product, in: session))
        case .observe: break
        default: return .unsupported(reason: "not mapped to SKTestSession in this driver")
        }
        try await Task.sleep(for: .milliseconds(500))  // let Transaction.updates reach the app
        var entitlements: [String] = []
        for await case .verified(let transaction) in Transaction.currentEntitlements {
            entitlements.append(transaction.productID)
        }
        let observation = Observation(access: await app.access.sorted(), entitlements: entitlements.sorted(), result: result,
                                      storeTime: Int64(Date().timeIntervalSince1970 * 1000))
        return .observed(observation)
    }

    /// The identifier of the latest test transaction of `productID`.
    func latest(_ productID: String, in session: SKTestSession) throws -> UInt {
        guard let transaction = session.allTransactions().last(where: { $0.productIdentifier == productID }) else {
            throw DriverError.environment("no transaction of \(productID) in the test session")
        }
        return transaction.identifier
    }
}
