import Foundation
import MatrixCore

/// Signs App Store payloads as compact JWS; the simulator stays free of cryptography.
public protocol PayloadSigner: Sendable {
    /// Signs a JSON payload. - Throws: when signing fails.
    func sign(_ payload: Data) throws -> String
}

/// One case running in the embedded environment: a fresh App Store, the accounts' devices, and the reference
/// app. Performs steps and observes what the app and the store show.
public final class LocalSession: CaseSession {
    public let matrix: Matrix
    public let matrixCase: MatrixCase
    public let store: AppStoreSimulator
    public let app: ReferenceApp
    let signer: (any PayloadSigner)?
    /// The device each account currently uses.
    var devices: [String: Device] = [:]
    var deviceCount = 0
    var notificationCursor: [String: Int] = [:]

    /// - Parameters:
    ///   - signer: signs transactions, renewal infos and notifications into the evidence; `nil` leaves them out.
    /// - Throws: ``StoreError`` when an account's starting state cannot be set up.
    public init(matrix: Matrix, matrixCase: MatrixCase, schedule: RenewalSchedule = .real, signedEnvironment: String = "Sandbox",
                fault: AppFault? = nil, signer: (any PayloadSigner)? = nil) throws(StoreError) {
        self.matrix = matrix
        self.matrixCase = matrixCase
        self.store = AppStoreSimulator(
            catalog: matrix.catalog,
            configuration: StoreConfiguration(matrix: matrix, case: matrixCase, signedEnvironment: signedEnvironment, schedule: schedule))
        self.app = ReferenceApp(matrix: matrix, store: store, fault: fault)
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

    /// The device `account` uses now (its first device until `switchDevice`).
    public func device(for account: String) -> Device {
        if let device = devices[account] { return device }
        return newDevice(for: account, name: "device-1")
    }

    @discardableResult
    func newDevice(for account: String, name: String) -> Device {
        deviceCount += 1
        let device = Device(name: "\(account)/\(name)", account: account, updateCursor: store.updateLog.count)
        devices[account] = device
        return device
    }

    public func perform(_ step: Step, index: Int) async throws -> StepOutcome {
        do {
            return try performStep(step)
        } catch {
            throw AdapterError(error.message)
        }
    }

    public func close() async {}

    func performStep(_ step: Step) throws(StoreError) -> StepOutcome {
        let account = step.account ?? matrixCase.account
        let device = device(for: account)
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
            if device.isRunning { throw StoreError("the app is already running on \(device.name); use relaunch") }
            app.launch(device)
        case .relaunch:
            app.quit(device)
            app.launch(device)
        case .quit:
            app.quit(device)
        case .reinstall:
            app.quit(device)
            device.storage = AppStorage()
            device.updateCursor = store.updateLog.count
            app.launch(device)
        case .switchDevice:
            app.quit(device)
            newDevice(for: account, name: step.device ?? "device-\(deviceCount + 1)")
        case .purchase:
            let report = try app.purchase(device, step: step)
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
            let restore = try app.restore(device)
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
        for other in devices.values.sorted(by: { $0.name < $1.name }) {
            app.deliverPendingUpdates(other)
        }
        touched += store.transactions[firstTransaction...].map(\.transactionId)
        touched += store.updateLog[firstUpdate...].filter { $0.account == account }.map(\.transactionId)
        var seen = Set<String>()
        touched = touched.filter { seen.insert($0).inserted && store.transaction($0)?.account == account }
        if message == nil, let limit = store.subscriptions.values.first(where: { $0.account == account && $0.environmentLimit != nil })?.environmentLimit,
           step.action == .renew || step.action == .advanceTime {
            message = limit
        }
        if message == nil, !device.isRunning, step.action != .quit, step.action != .switchDevice {
            message = "the app is not running"
        }
        let observation = observe(account: account, device: device, result: result, message: message, touched: touched)
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
    func observe(account: String, device: Device, result: String?, message: String?, touched: [String]) -> Observation {
        let start = notificationCursor[account] ?? 0
        let all = store.notifications
        let sent = all[min(start, all.count)...].filter { $0.account == account }
        notificationCursor[account] = all.count
        let transactions = matrix.catalog.products.compactMap {
            store.lastTransaction(account: account, productID: $0.productID)?.observed
        }
        return Observation(
            access: app.access(on: device).sorted(),
            entitlements: store.currentEntitlements(account: account).map(\.productId).sorted(),
            result: result,
            subscriptionStatus: store.subscriptionStatus(account: account),
            balance: device.storage.balances,
            notifications: sent.map(\.name),
            renewals: store.renewalCount(account: account),
            transactions: transactions,
            renewalInfo: store.renewalInfo(account: account),
            eligibleForIntroOffer: store.introOfferEligibility(account: account),
            transactionIds: touched,
            signedData: sign(touched: touched, notifications: sent),
            message: message,
            storeTime: store.now)
    }
}
