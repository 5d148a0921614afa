import Foundation
import MatrixEngine
import MatrixModel
import ReferenceApp
import StoreSimulator

/// Signs App Store payloads as compact JWS; the simulator stays free of cryptography.
public protocol PayloadSigner: Sendable {
    /// Signs a JSON payload. - Throws: when signing fails.
    func sign(_ payload: Data) throws -> String
}

/// One case running in the embedded environment: a fresh App Store, the accounts' devices, and on each an app
/// under test (the reference app unless told otherwise). Performs steps and observes what the app and the store
/// show.
public final class LocalSession: CaseSession {
    public let matrix: Matrix
    public let matrixCase: MatrixCase
    public let store: AppStoreSimulator
    /// Installs the app on a device: a new install for the first launch, a reinstall or another device.
    let install: (StoreConnection) -> any AppUnderTest
    let signer: (any PayloadSigner)?
    /// The device each account currently uses, and the app installed on it.
    var devices: [String: InstalledApp] = [:]
    var deviceCount = 0
    var notificationCursor: [String: Int] = [:]

    /// A device with the app installed on it.
    package struct InstalledApp {
        package var connection: StoreConnection
        package var app: any AppUnderTest
    }

    /// - Parameters:
    ///   - install: makes the app under test for a device; by default the reference app with `fault`.
    ///   - signer: signs transactions, renewal infos and notifications into the evidence; `nil` leaves them out.
    /// - Throws: ``StoreError`` when an account's starting state cannot be set up.
    public init(matrix: Matrix, matrixCase: MatrixCase, schedule: RenewalSchedule = .real, signedEnvironment: SignedEnvironment = .sandbox,
                fault: AppFault? = nil, install: ((StoreConnection) -> any AppUnderTest)? = nil,
                signer: (any PayloadSigner)? = nil) throws(StoreError) {
        self.matrix = matrix
        self.matrixCase = matrixCase
        self.store = AppStoreSimulator(
            catalog: matrix.catalog,
            configuration: StoreConfiguration(matrix: matrix, case: matrixCase, signedEnvironment: signedEnvironment, schedule: schedule))
        self.install = install ?? { ReferenceApp(matrix: matrix, store: $0, fault: fault) }
        self.signer = signer
        try store.prepare(Self.accounts(of: matrixCase, in: matrix))
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

    /// The device `account` uses now (its first device until `switchDevice`), with its app.
    package func device(for account: String) -> InstalledApp {
        if let device = devices[account] { return device }
        return newDevice(for: account, name: "device-1")
    }

    @discardableResult
    func newDevice(for account: String, name: String) -> InstalledApp {
        deviceCount += 1
        let connection = StoreConnection(store: store, deviceName: "\(account)/\(name)", account: account)
        let device = InstalledApp(connection: connection, app: install(connection))
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
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw AdapterError("the app failed: \(error)")
        }
    }

    public func close() async {}

    func performStep(_ step: Step) async throws -> StepOutcome {
        let account = step.account ?? matrixCase.account
        var device = device(for: account)
        let startTime = store.now
        let firstTransaction = store.transactions.count
        let firstUpdate = store.updateLog.count
        var result: String?
        var message: String?
        var touched: [String] = []

        if let limit = environmentLimit(for: step) {
            return .skipped(reason: limit)
        }
        switch step.action {
        case .launch:
            if device.app.isRunning {
                throw StoreError("the app is already running on \(device.connection.deviceName); use relaunch")
            }
            try await device.app.launch()
        case .relaunch:
            await device.app.quit()
            try await device.app.launch()
        case .quit:
            await device.app.quit()
        case .reinstall:
            await device.app.quit()
            device.connection.discardPendingUpdates()
            let fresh = InstalledApp(connection: device.connection, app: install(device.connection))
            devices[account] = fresh
            device = fresh
            try await fresh.app.launch()
        case .switchDevice:
            await device.app.quit()
            newDevice(for: account, name: step.device ?? "device-\(deviceCount + 1)")
        case .purchase:
            guard let product = step.product else { throw StoreError("purchase needs a product") }
            device.connection.nextPurchaseOutcome = step.outcome ?? .success
            let report = try await device.app.purchase(AppPurchaseRequest(
                productID: product, quantity: step.quantity ?? 1, offer: step.offer, appAccountToken: step.appAccountToken,
                terminate: step.terminate))
            result = report.result
            message = report.message
            if let id = report.transactionId { touched.append(id) }
        case .approveAskToBuy:
            touched.append(try store.approveAskToBuy(account: account, productID: step.product))
        case .declineAskToBuy:
            try store.declineAskToBuy(account: account, productID: step.product)
        case .resolveIssue:
            touched.append(try store.resolveIssue(account: account, productID: step.product))
        case .restore:
            let restore = try await device.app.restore()
            result = restore.result
            message = restore.message
        case .purchaseOutsideApp:
            touched.append(try store.purchaseOutsideApp(account: account, productID: step.product ?? "", quantity: step.quantity ?? 1,
                                                        offer: step.offer))
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
            touched.append(try store.recoverBilling(account: account, productID: step.product))
        case .refund:
            touched.append(try store.refund(account: account, productID: step.product ?? "", reason: step.reason ?? 0))
        case .declineRefund:
            try store.declineRefund(account: account, productID: step.product ?? "")
        case .reverseRefund:
            try store.reverseRefund(account: account, productID: step.product ?? "")
        case .revokeFamilySharing:
            try store.revokeFamilySharing(member: account, productID: step.product)
        case .requestPriceIncrease:
            try store.requestPriceIncrease(account: account, productID: step.product)
        case .consentToPriceIncrease:
            try store.respondToPriceIncrease(consent: true, account: account, productID: step.product)
        case .declinePriceIncrease:
            try store.respondToPriceIncrease(consent: false, account: account, productID: step.product)
        case .removeFromSale:
            try store.removeFromSale(productID: step.product ?? "")
        case .observe:
            break
        }

        // Running apps receive what the step sent through Transaction.updates.
        for other in devices.values.sorted(by: { $0.connection.deviceName < $1.connection.deviceName }) {
            other.connection.deliverPendingUpdates()
        }
        touched += store.transactions[firstTransaction...].map(\.transactionId)
        touched += store.updateLog[firstUpdate...].filter { $0.account == account }.map(\.transactionId)
        var seen = Set<String>()
        touched = touched.filter { seen.insert($0).inserted && store.transaction($0)?.account == account }
        if message == nil, let limit = store.subscriptions.values.first(where: { $0.account == account && $0.environmentLimit != nil })?.environmentLimit,
           step.action == .renew || step.action == .advanceTime {
            message = limit
        }
        if message == nil, !device.app.isRunning, step.action != .quit, step.action != .switchDevice {
            message = "the app is not running"
        }
        let observation = try await observe(account: account, device: device, result: result, message: message, touched: touched)
        return .observed(observation, modelledWallTimeMs: store.now - startTime)
    }

    /// Why the modelled environment cannot perform a step, if it cannot: TestFlight does not simulate billing
    /// problems.
    func environmentLimit(for step: Step) -> String? {
        let schedule = store.configuration.schedule
        guard let reason = schedule.billingRetryUnsupportedReason else { return nil }
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
    func observe(account: String, device: InstalledApp, result: String?, message: String?, touched: [String]) async throws(SigningFailure) -> Observation {
        let start = notificationCursor[account] ?? 0
        let all = store.notifications
        let sent = all[min(start, all.count)...].filter { $0.account == account }
        notificationCursor[account] = all.count
        let transactions = matrix.catalog.products.compactMap {
            store.lastTransaction(account: account, productID: $0.productID)?.observed
        }
        let signedData = try sign(touched: touched, notifications: sent)
        let access = matrix.access(for: await device.app.entitledProductIDs()).sorted()
        let balances = await device.app.balances()
        return Observation(
            access: access,
            entitlements: store.currentEntitlements(account: account).map(\.productId).sorted(),
            result: result,
            subscriptionStatus: store.subscriptionStatus(account: account),
            balance: balances,
            notifications: sent.map(\.name),
            renewals: store.renewalCount(account: account),
            transactions: transactions,
            renewalInfo: store.renewalInfo(account: account),
            eligibleForIntroOffer: store.introOfferEligibility(account: account),
            transactionIds: touched,
            signedData: signedData,
            message: message,
            storeTime: store.now)
    }
}
