import Foundation
import MatrixEngine
import MatrixModel
import SimulatedStoreKit
import StoreSimulator
import Threading

/// One case running on the embedded App Store: a fresh store, the accounts' devices, and on each an app under
/// test (the reference app, or a team's own) that reaches the store through the StoreKit look-alike.
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
    /// How long a call into the app (launch, purchase, restore, what it grants) may take before the step errors.
    let callLimit: Duration
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
    ///   - app: makes the app under test for each device (`AppInstaller.reference(faults:)` for the reference app).
    ///   - signer: signs transactions, renewal infos and notifications into the evidence and for the apps'
    ///     `jwsRepresentation`; `nil` leaves them out.
    ///   - settleLimit: how long an app may take to handle the updates of one step before the step errors.
    ///   - callLimit: how long one call into the app may take before the step errors (a safety net for calls that
    ///     never return; generous, so that a loaded machine does not trip it).
    ///   - identifierSpace: the block of identifiers the store hands out (``StoreConfiguration/identifierSpace``).
    ///   - identifierSalt: the run's random bits in notification UUIDs (``StoreConfiguration/identifierSalt``).
    /// - Throws: ``StoreError`` when an account's starting state cannot be set up.
    public init(matrix: Matrix, matrixCase: MatrixCase, schedule: RenewalSchedule = .real, signedEnvironment: SignedEnvironment = .sandbox,
                app: AppInstaller, signer: (any PayloadSigner)? = nil,
                settleLimit: Duration = .seconds(10), callLimit: Duration = .seconds(60), identifierSpace: Int64 = 0,
                identifierSalt: UInt64 = 0) throws(StoreError) {
        self.matrix = matrix
        self.matrixCase = matrixCase
        var configuration = StoreConfiguration(matrix: matrix, case: matrixCase, signedEnvironment: signedEnvironment, schedule: schedule)
        configuration.identifierSpace = identifierSpace
        configuration.identifierSalt = identifierSalt
        let simulator = AppStoreSimulator(catalog: matrix.catalog, configuration: configuration)
        try simulator.prepare(Self.accounts(of: matrixCase, in: matrix))
        self.store = SimulatedStore(simulator, signer: signer)
        self.install = { app.install(for: matrix) }
        self.signer = signer
        self.settleLimit = settleLimit
        self.callLimit = callLimit
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
            // The run was cancelled (Ctrl-C), or the app's own code threw CancellationError: only the first stops the run.
            if Task.isCancelled { throw CancellationError() }
            throw AdapterError("the app threw CancellationError, though the run was not cancelled")
        } catch {
            throw AdapterError("the app failed: \(error)")
        }
    }

    /// Calls into the app bound to `session`'s StoreKit, within ``callLimit``: an app call that never returns
    /// errors the step instead of hanging the run (the call itself is left running, cancelled). Cancelling the
    /// run cancels the call and throws `CancellationError` at once, whether or not the call heeds it. The limit
    /// is kept by the process's ``Watchdog``, so a call costs one task (the one that can be left behind) and no
    /// timer.
    func bounded<Result: Sendable>(_ what: String, _ session: StoreKitSession,
                                   _ body: @escaping @Sendable () async throws -> Result) async throws -> Result {
        try await bounded(what, session) { _ in try await body() }
    }

    /// The same for several calls into the app made one after another in one task (a step's observation asks the
    /// app three things): `body` names each call as it starts it (`calling("balances()")`,
    /// `what` the first); together they have ``callLimit``, and the error names the call that had not returned. One
    /// task for the lot spares two hand-offs between threads per call.
    func bounded<Result: Sendable>(_ what: String, _ session: StoreKitSession,
                                   _ body: @escaping @Sendable (_ calling: @Sendable (String) -> Void) async throws -> Result) async throws -> Result {
        let outcome = CallOutcome<Swift.Result<Result, any Error>>()
        let limit = callLimit
        let current = Locked(what)
        let call = PreferredExecutor.current.task {
            do {
                outcome.resume(.success(try await session.run { try await body { next in
                    current.withLock { $0 = next }
                } }))
            } catch {
                outcome.resume(.failure(error))
            }
        }
        let watch = Watchdog.shared.watch(for: limit) {
            outcome.resume(nil)
            call.cancel()
        }
        let result = await withTaskCancellationHandler {
            await outcome.value()
        } onCancel: {
            // Ctrl-C does not wait for a call that ignores cancellation: the call is left running, as at the limit.
            call.cancel()
            outcome.resume(.failure(CancellationError()))
        }
        Watchdog.shared.end(watch)
        guard let result else {
            let stuck = current.withLock { $0 }
            throw AdapterError("the app's \(stuck) did not return within \(limit); a call into the app that never returns stops the case")
        }
        return try result.get()
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
            return .skipped(reason: limit, limit: .billingRetry)
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
            try await relaunch(&device)
        case .quit:
            try await quit(&device)
        case .reinstall:
            try await quit(&device)
            device.session.discardPendingUpdates()
            device.app = install()
            try await launch(&device)
        case .switchDevice:
            try await quit(&device)
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
            let report: AppRestoreReport?
            do {
                report = try await bounded("restore()", session) { try await app.restore() }
            } catch let error where Self.isStoreKitError(error) {
                // The app let AppStore.sync()'s error through: the restore failed, as its customer sees it.
                report = AppRestoreReport(result: "failed", message: "\(error)")
            }
            if let report {
                (result, message) = (report.result, report.message)
            } else {
                let grants = try await !bounded("entitledProductIDs()", session) { await app.entitledProductIDs() }.isEmpty
                (result, message) = grants ? ("restored", "Purchases restored") : ("nothingToRestore", "Nothing to restore")
            }
        default:
            touched += try await SimulatorStoreSide(store: store).perform(step, account: account)
        }
        devices[account] = devices[account].map { current in
            current.session === device.session ? device : current
        } ?? device

        // Running apps receive what the step sent through Transaction.updates and handle it.
        for other in devices.values.sorted(by: { $0.session.deviceName < $1.session.deviceName }) where other.running {
            other.session.deliverPendingUpdates()
            guard await other.session.settle(within: settleLimit) else {
                try Task.checkCancellation()
                let held = other.session.unsettledListeners.map { " (\($0))" } ?? ""
                throw AdapterError("the app on \(other.session.deviceName) did not finish handling its Transaction.updates within "
                                   + "\(settleLimit)\(held); a listener that never asks for the next update stops the case")
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
        // What the store says is the store's, not the app's.
        var storeMessage: String?
        if step.action == .renew || step.action == .advanceTime,
           let limit = withStore({ store in store.subscriptions.values.first { $0.account == account && $0.environmentLimit != nil }?.environmentLimit }) {
            storeMessage = limit
        }
        if storeMessage == nil, !device.running, step.action != .quit, step.action != .switchDevice {
            storeMessage = "the app is not running"
        }
        var observation = try await observe(account: account, device: device, result: result, message: message, touched: accountTouched,
                                            expectedBalances: step.expect?.balance.map { Set($0.keys) })
        observation.storeMessage = storeMessage
        return .observed(observation, modelledWallTimeMs: withStore { $0.now } - startTime)
    }

    /// Whether `error` is one StoreKit throws at app code (`StoreKitError`, `Product.PurchaseError`), rather than
    /// the app's own or the harness's.
    static func isStoreKitError(_ error: any Error) -> Bool {
        error is StoreKitError || error is Product.PurchaseError
    }

    /// Launches the device's app, bound to its StoreKit.
    func launch(_ device: inout InstalledApp) async throws {
        let app = device.app
        try await bounded("launch()", device.session) { try await app.launch() }
        device.running = true
    }

    /// Quits the device's app; its `Transaction.updates` loops end.
    func quit(_ device: inout InstalledApp) async throws {
        let app = device.app
        if device.running { try await bounded("quit()", device.session) { await app.quit() } }
        device.session.endLaunch()
        device.running = false
    }

    /// Quits the device's app if it runs, and launches it again: ``quit(_:)`` then ``launch(_:)``, in one task.
    func relaunch(_ device: inout InstalledApp) async throws {
        let (app, session, running) = (device.app, device.session, device.running)
        try await bounded(running ? "quit()" : "launch()", session) { calling in
            if running { await app.quit() }
            session.endLaunch()
            calling("launch()")
            // Bound anew: what the new launch starts belongs to it, not to the one that ended.
            try await session.run { try await app.launch() }
        }
        device.running = true
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
        let answer: AppPurchaseReport??
        do {
            answer = try await bounded("purchase(_:)", session) { try await session.runUntilKilled(preferring: PreferredExecutor.current) { try await app.purchase(request) } }
        } catch let error where Self.isStoreKitError(error) {
            // The app let StoreKit's error through (products(for:) or purchase(options:) threw): a failed purchase.
            _ = session.takeLastPurchase()
            return AppPurchaseReport(result: "failed", message: "\(error)")
        }
        let record = session.takeLastPurchase()
        // A kill that did not happen in its step must not strike a later one.
        let unmetKill = answer != nil && session.disarmKill()
        guard let report = answer else {
            // The process died while it handled the purchase: what it kept in memory is gone, what it stored stays.
            try await bounded("quit()", session) { await app.quit() }
            session.endLaunch()
            device.running = false
            return AppPurchaseReport(result: record?.result ?? "success", message: record?.message, transactionId: record?.transactionId)
        }
        if let record, record.productID != productID {
            throw AdapterError("the step buys \(productID), but the app called Product.purchase(options:) for \(record.productID)")
        }
        if let point = step.terminate, answer != nil || unmetKill {
            // A kill at beforeDelivery comes as purchase(options:) returns; at beforeFinish it comes only if the app calls
            // finish() on the purchase's transaction while it handles it.
            if let record, record.result != "success" {
                throw AdapterError("terminate: \(point.rawValue) never happened: the purchase answered \(record.result), so there was "
                                   + "no transaction to kill the app at")
            }
            throw AdapterError("terminate: \(point.rawValue) never happened: the app did not call finish() on the purchase's "
                               + "transaction while it handled the purchase, so it was not killed; an app that never finishes "
                               + "it leaves the transaction unfinished")
        }
        if let report { return report }
        guard let record else {
            throw AppHarnessError("the app did not call Product.purchase(options:) for \(productID)")
        }
        return AppPurchaseReport(result: record.result, message: record.message, transactionId: record.transactionId)
    }

    /// Why the modelled environment cannot perform a step, if it cannot: TestFlight does not simulate billing
    /// problems.
    func environmentLimit(for step: Step) -> String? {
        guard step.needsBillingRetry, let reason = withStore({ $0.configuration.schedule.billingRetryUnsupportedReason }) else { return nil }
        return "environment limit: \(reason)"
    }

    /// What the acting account sees now.
    func observe(account: String, device: InstalledApp, result: String?, message: String?, touched: [String],
                 expectedBalances: Set<String>? = nil) async throws -> Observation {
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
        let running = device.running
        // What the app shows for prices: only a running app that reports them shows any.
        let (entitled, balances, shownPrices) = try await bounded(running ? "entitledProductIDs()" : "balances()", device.session) { calling in
            let entitled = running ? await app.entitledProductIDs() : []
            calling("balances()")
            let balances = await app.balances()
            if running { calling("displayedPrices()") }
            return (entitled, balances, running ? await app.displayedPrices() : [:])
        }
        if let expected = expectedBalances, !expected.isEmpty, device.session.usesDefaultBalances {
            throw AdapterError("the step expects the balance \(expected.sorted().map { "\"\($0)\"" }.joined(separator: ", ")), but the app "
                               + "does not implement AppUnderTest.balances(): return the consumable balances it keeps, by the "
                               + "matrix's balance names")
        }
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

/// What a call into the app answered, or `nil` when its limit passed first: the first of the two is kept, and
/// handed to the one waiter whether it comes before or after the waiter.
private final class CallOutcome<Value: Sendable>: Sendable {
    private enum State {
        case pending
        case waiting(CheckedContinuation<Value?, Never>)
        case done(Value?)
        case taken
    }

    private let state = Locked(State.pending)

    func resume(_ value: Value?) {
        let waiter = state.withLock { state -> CheckedContinuation<Value?, Never>? in
            switch state {
            case .pending:
                state = .done(value)
                return nil
            case .waiting(let continuation):
                state = .taken
                return continuation
            case .done, .taken:
                return nil
            }
        }
        waiter?.resume(returning: value)
    }

    func value() async -> Value? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
            let ready = state.withLock { state -> Value?? in
                guard case .done(let value) = state else {
                    state = .waiting(continuation)
                    return nil
                }
                state = .taken
                return .some(value)
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
