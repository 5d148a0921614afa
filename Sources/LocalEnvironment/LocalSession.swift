import Foundation
import MatrixEngine
import MatrixModel
import ReferenceApp
import SimulatedStoreKit
import StoreSimulator

/// One case running on the embedded App Store: a fresh store, the accounts' devices, and on each an app under
/// test (the reference app unless told otherwise) that reaches the store through the StoreKit look-alike.
///
/// For each step the session plays the App Store's side on the store (renewals, refunds, Ask to Buy answers,
/// time), asks the app for its side (launch, purchase, restore), delivers what resulted to the running apps'
/// `Transaction.updates` and waits until they have handled it, then observes the app and the store.
public final class LocalSession: CaseSession {
    public let matrix: Matrix
    public let matrixCase: MatrixCase
    /// The case's store, shared with the apps' StoreKit calls.
    public let store: SimulatedStore
    /// Installs the app on a device: a new install for the first launch, a reinstall or another device.
    let install: () -> any AppUnderTest
    let signer: (any PayloadSigner)?
    /// How long the apps may take to handle what a step delivered to them.
    let settleLimit: Duration
    /// The device each account currently uses, and the app installed on it.
    var devices: [String: InstalledApp] = [:]
    var deviceCount = 0
    var notificationCursor: [String: Int] = [:]

    /// A device with the app installed on it.
    package struct InstalledApp {
        /// StoreKit on the device.
        package var session: StoreKitSession
        package var app: any AppUnderTest
        /// Whether the app runs (launched and not quit or killed since).
        package var running = false
    }

    /// - Parameters:
    ///   - install: makes the app under test for a device; by default the reference app with `fault`.
    ///   - signer: signs transactions, renewal infos and notifications into the evidence and for the apps'
    ///     `jwsRepresentation`; `nil` leaves them out.
    ///   - settleLimit: how long an app may take to handle the updates of one step before the step errors.
    /// - Throws: ``StoreError`` when an account's starting state cannot be set up.
    public init(matrix: Matrix, matrixCase: MatrixCase, schedule: RenewalSchedule = .real, signedEnvironment: SignedEnvironment = .sandbox,
                fault: AppFault? = nil, install: (() -> any AppUnderTest)? = nil, signer: (any PayloadSigner)? = nil,
                settleLimit: Duration = .seconds(10)) throws(StoreError) {
        self.matrix = matrix
        self.matrixCase = matrixCase
        let simulator = AppStoreSimulator(
            catalog: matrix.catalog,
            configuration: StoreConfiguration(matrix: matrix, case: matrixCase, signedEnvironment: signedEnvironment, schedule: schedule))
        try simulator.prepare(Self.accounts(of: matrixCase, in: matrix))
        self.store = SimulatedStore(simulator, signer: signer)
        self.install = install ?? { ReferenceApp(matrix: matrix, fault: fault) }
        self.signer = signer
        self.settleLimit = settleLimit
    }

    /// The accounts a case's store holds: the ones its steps act on, and the families they belong to. Other
    /// accounts of the matrix play no part in the case; their subscriptions would only add renewals to every
    /// clock move (at Xcode's fastest rates, tens of thousands a day).
    static func accounts(of matrixCase: MatrixCase, in matrix: Matrix) -> [Account] {
        var aliases: Set<String> = [matrixCase.account]
        for step in matrixCase.steps { if let alias = step.account { aliases.insert(alias) } }
        let organizers = Set(aliases.compactMap { matrix.account($0)?.familyOrganizer }).union(aliases)
        return matrix.accounts.filter { account in
            aliases.contains(account.alias) || organizers.contains(account.alias)
                || account.familyOrganizer.map(organizers.contains) == true
        }
    }

    /// Runs `body` with the case's store, under its lock.
    package func withStore<Result: Sendable>(_ body: (AppStoreSimulator) throws -> Result) rethrows -> Result {
        try store.withStore { simulator in try body(simulator) }
    }

    /// The device `account` uses now (its first device until `switchDevice`), with its app.
    package func device(for account: String) -> InstalledApp {
        if let device = devices[account] { return device }
        return newDevice(for: account, name: "device-1")
    }

    @discardableResult
    func newDevice(for account: String, name: String) -> InstalledApp {
        deviceCount += 1
        let session = StoreKitSession(store: store, deviceName: "\(account)/\(name)", account: account)
        let device = InstalledApp(session: session, app: install())
        devices[account] = device
        return device
    }

    public func perform(_ step: Step, index: Int) async throws -> StepOutcome {
        do {
            return try await performStep(step)
        } catch let error as StoreError {
            throw AdapterError(error.message)
        } catch let error as AdapterError {
            throw error
        } catch let error as SigningFailure {
            throw AdapterError(error.message)
        } catch let error as AppHarnessError {
            throw AdapterError(error.message)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw AdapterError("the app failed: \(error)")
        }
    }

    public func close() async {
        for device in devices.values { device.session.close() }
    }

    func performStep(_ step: Step) async throws -> StepOutcome {
        let account = step.account ?? matrixCase.account
        var device = device(for: account)
        let (startTime, firstTransaction, firstUpdate) = withStore { ($0.now, $0.transactions.count, $0.updateLog.count) }
        var result: String?
        var message: String?
        var touched: [String] = []

        if let limit = environmentLimit(for: step) {
            return .skipped(reason: limit)
        }
        if let failNext = step.failNext {
            guard let failure = StoreKitFailure(failNext) else {
                throw AdapterError("a \(failNext.call.rawValue) call cannot fail with \"\(failNext.error)\"")
            }
            device.session.failNext(failNext.call, with: failure)
        }
        switch step.action {
        case .launch:
            if device.running {
                throw StoreError("the app is already running on \(device.session.deviceName); use relaunch")
            }
            try await launch(&device)
        case .relaunch:
            await quit(&device)
            try await launch(&device)
        case .quit:
            await quit(&device)
        case .reinstall:
            await quit(&device)
            device.session.discardPendingUpdates()
            device.app = install()
            try await launch(&device)
        case .switchDevice:
            await quit(&device)
            newDevice(for: account, name: step.device ?? "device-\(deviceCount + 1)")
        case .purchase:
            guard let product = step.product else { throw StoreError("purchase needs a product") }
            let report = try await purchase(product, step: step, on: &device)
            result = report.result
            message = report.message
            if let id = report.transactionId { touched.append(id) }
        case .restore:
            let session = device.session
            let app = device.app
            let report = try await session.run { try await app.restore() }
            if let report {
                (result, message) = (report.result, report.message)
            } else {
                let grants = await !session.run { await app.entitledProductIDs() }.isEmpty
                (result, message) = grants ? ("restored", "Purchases restored") : ("nothingToRestore", "Nothing to restore")
            }
        default:
            touched += try performStoreAction(step, account: account)
        }
        devices[account] = devices[account].map { current in
            current.session === device.session ? device : current
        } ?? device

        // Running apps receive what the step sent through Transaction.updates and handle it.
        for other in devices.values.sorted(by: { $0.session.deviceName < $1.session.deviceName }) where other.running {
            other.session.deliverPendingUpdates()
            guard await other.session.settle(within: settleLimit) else {
                throw AdapterError("the app on \(other.session.deviceName) did not finish handling its Transaction.updates within "
                                   + "\(settleLimit); a listener that never asks for the next update stops the case")
            }
        }
        for other in devices.values {
            if let problem = other.session.takeUnboundCalls().first { throw AdapterError(problem) }
        }
        if let unmet = device.session.takeUnmetFailures().first {
            let missing = unmet == .verification ? "StoreKit handed the app no transaction" : "the app made no \(unmet.callName) call"
            throw AdapterError("failNext: \(missing) during this step, so the failure set up for it changed nothing; put failNext "
                               + "on the step whose own calls should fail")
        }
        let accountTouched = withStore { store in
            var ids = touched + store.transactions[firstTransaction...].map(\.transactionId)
            ids += store.updateLog[firstUpdate...].filter { $0.account == account }.map(\.transactionId)
            var seen = Set<String>()
            return ids.filter { seen.insert($0).inserted && store.transaction($0)?.account == account }
        }
        if message == nil, step.action == .renew || step.action == .advanceTime,
           let limit = withStore({ store in store.subscriptions.values.first { $0.account == account && $0.environmentLimit != nil }?.environmentLimit }) {
            message = limit
        }
        if message == nil, !device.running, step.action != .quit, step.action != .switchDevice {
            message = "the app is not running"
        }
        let observation = try await observe(account: account, device: device, result: result, message: message, touched: accountTouched)
        return .observed(observation, modelledWallTimeMs: withStore { $0.now } - startTime)
    }

    /// Launches the device's app, bound to its StoreKit.
    func launch(_ device: inout InstalledApp) async throws {
        let app = device.app
        try await device.session.run { try await app.launch() }
        device.running = true
    }

    /// Quits the device's app; its `Transaction.updates` loops end.
    func quit(_ device: inout InstalledApp) async {
        let app = device.app
        if device.running { await device.session.run { await app.quit() } }
        device.session.endLaunch()
        device.running = false
    }

    /// Asks the app to buy `productID`, answered as the step's outcome says.
    func purchase(_ productID: String, step: Step, on device: inout InstalledApp) async throws -> AppPurchaseReport {
        let session = device.session
        let app = device.app
        session.setNextPurchaseOutcome(step.outcome ?? .success)
        session.killDuringNextPurchase(at: step.terminate)
        _ = session.takeLastPurchase()
        let request = AppPurchaseRequest(productID: productID, quantity: step.quantity ?? 1, offer: step.offer,
                                         appAccountToken: step.appAccountToken)
        let answer = try await session.runUntilKilled { try await app.purchase(request) }
        guard let report = answer else {
            // The process died while it handled the purchase: what it kept in memory is gone, what it stored stays.
            await session.run { await app.quit() }
            session.endLaunch()
            device.running = false
            let record = session.takeLastPurchase()
            return AppPurchaseReport(result: record?.result ?? "success", message: record?.message, transactionId: record?.transactionId)
        }
        if let report { return report }
        guard let record = session.takeLastPurchase() else {
            throw AppHarnessError("the app did not call Product.purchase(options:) for \(productID)")
        }
        return AppPurchaseReport(result: record.result, message: record.message, transactionId: record.transactionId)
    }

    /// Performs the App Store's side of a step on the store; returns the transactions it made or changed.
    func performStoreAction(_ step: Step, account: String) throws(StoreError) -> [String] {
        try store.withStore { store throws(StoreError) -> [String] in
            switch step.action {
            case .approveAskToBuy:
                return [try store.approveAskToBuy(account: account, productID: step.product)]
            case .declineAskToBuy:
                try store.declineAskToBuy(account: account, productID: step.product)
            case .resolveIssue:
                return [try store.resolveIssue(account: account, productID: step.product)]
            case .purchaseOutsideApp:
                return [try store.purchaseOutsideApp(account: account, productID: step.product ?? "", quantity: step.quantity ?? 1,
                                                     offer: step.offer)]
            case .renew:
                try store.renew(account: account, productID: step.product, count: step.count ?? 1)
            case .advanceTime:
                if let by = step.by {
                    try store.advance(to: by.added(to: store.now))
                } else if let point = step.to {
                    try store.advance(to: try store.time(of: point, account: account, productID: step.product))
                }
            case .disableAutoRenew:
                try store.setAutoRenew(false, account: account, productID: step.product)
            case .enableAutoRenew:
                try store.setAutoRenew(true, account: account, productID: step.product)
            case .expire:
                try store.expireNow(account: account, productID: step.product)
            case .failRenewal:
                try store.failNextRenewal(account: account, productID: step.product, gracePeriod: step.gracePeriod)
            case .recoverBilling:
                return [try store.recoverBilling(account: account, productID: step.product)]
            case .requestRefund:
                try store.requestRefund(account: account, productID: step.product ?? "")
            case .refund:
                return [try store.refund(account: account, productID: step.product ?? "", reason: step.reason ?? 0)]
            case .declineRefund:
                try store.declineRefund(account: account, productID: step.product ?? "")
            case .reverseRefund:
                try store.reverseRefund(account: account, productID: step.product ?? "")
            case .revokeFamilySharing:
                try store.revokeFamilySharing(member: account, productID: step.product)
            case .requestPriceIncrease:
                guard let price = step.price else { throw StoreError("requestPriceIncrease needs the new price") }
                try store.requestPriceIncrease(account: account, productID: step.product, price: price)
            case .consentToPriceIncrease:
                try store.respondToPriceIncrease(consent: true, account: account, productID: step.product)
            case .declinePriceIncrease:
                try store.respondToPriceIncrease(consent: false, account: account, productID: step.product)
            case .removeFromSale:
                try store.removeFromSale(productID: step.product ?? "")
            case .extendRenewalDate:
                return [try store.extendRenewalDate(account: account, productID: step.product, days: step.extendByDays ?? 0)]
            case .extendRenewalDatesForAllSubscribers:
                return try store.extendRenewalDatesForAllSubscribers(productID: step.product ?? "", days: step.extendByDays ?? 0, account: account)
            case .requestTestNotification:
                store.requestTestNotification(account: account)
            case .observe, .launch, .relaunch, .quit, .reinstall, .switchDevice, .purchase, .restore:
                break
            }
            return []
        }
    }

    /// Why the modelled environment cannot perform a step, if it cannot: TestFlight does not simulate billing
    /// problems.
    func environmentLimit(for step: Step) -> String? {
        guard let reason = withStore({ $0.configuration.schedule.billingRetryUnsupportedReason }) else { return nil }
        switch step.action {
        case .failRenewal, .recoverBilling:
            return "environment limit: \(reason)"
        case .advanceTime where step.to == .gracePeriodEnd || step.to == .billingRetryEnd:
            return "environment limit: \(reason)"
        default:
            return nil
        }
    }

    /// What the acting account sees now.
    func observe(account: String, device: InstalledApp, result: String?, message: String?, touched: [String]) async throws -> Observation {
        let start = notificationCursor[account] ?? 0
        let (sent, count) = withStore { store in
            (store.notifications[min(start, store.notifications.count)...].filter { $0.account == account }, store.notifications.count)
        }
        notificationCursor[account] = count
        var signedData: [SignedItem] = []
        if let signer {
            signedData = try withStore { store in try store.sign(touched: touched, notifications: sent, with: signer) }
        }
        let app = device.app
        let entitled = device.running ? await device.session.run { await app.entitledProductIDs() } : []
        let balances = await device.session.run { await app.balances() }
        // What the app shows for prices: only a running app that reports them shows any.
        let shownPrices = device.running ? await device.session.run { await app.displayedPrices() } : [:]
        return withStore { store in
            var notObserved: [String] = []
            if shownPrices == nil { notObserved.append("displayPrice") }
            // StoreKit Testing in Xcode has no App Store server: there are no notifications to observe there.
            // Apple: https://developer.apple.com/documentation/appstoreservernotifications/environment
            if !store.configuration.sendsServerNotifications { notObserved.append("notifications") }
            return Observation(
                access: matrix.access(for: entitled).sorted(),
                entitlements: store.currentEntitlements(account: account).map(\.productId).sorted(),
                result: result,
                subscriptionStatus: store.subscriptionStatus(account: account),
                balance: balances,
                notifications: sent.map(\.name),
                renewals: store.renewalCount(account: account),
                transactions: matrix.catalog.products.compactMap { store.lastTransaction(account: account, productID: $0.productID)?.observed },
                renewalInfo: store.renewalInfo(account: account),
                eligibleForIntroOffer: store.introOfferEligibility(account: account),
                displayPrice: shownPrices ?? [:],
                introductoryOffer: store.introductoryOffers(),
                serverNotifications: store.configuration.sendsServerNotifications,
                transactionIds: touched,
                signedData: signedData,
                notObserved: notObserved.isEmpty ? nil : notObserved,
                message: message,
                storeTime: store.now)
        }
    }
}
