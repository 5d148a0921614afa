import AppStoreModels
import Foundation
import HarnessCore
import MatrixEngine
import MatrixModel

/// One case of a matrix on an App Store that is not the embedded simulator (StoreKit Testing in Xcode): the App
/// Store's side of each step through an ``AppStoreSide``, the app's side through its ``AppUnderTest``, and the
/// observation through StoreKit as the app reads it (``StoreKitClient``).
///
/// Such a store has one account and one device, sends no App Store Server Notifications, and offers no hook to
/// know that the app has handled an update: after each step the session polls until the app's answer and the
/// unfinished transactions have stayed the same for three polls in a row (`pollInterval` apart), or
/// `settleLimit` passes. Steps that need another account or device, a kill, or an outcome the store cannot
/// produce are skipped with the reason.
public final class StoreKitCaseSession: CaseSession {
    let matrix: Matrix
    let matrixCase: MatrixCase
    let client: any StoreKitClient
    let side: any AppStoreSide
    let controls: any PurchaseControls
    let install: @Sendable () -> any AppUnderTest
    let settleLimit: Duration
    let pollInterval: Duration
    let now: @Sendable () -> Int64
    var app: any AppUnderTest
    var running = false

    /// - Parameters:
    ///   - install: makes the app for an installation (the first launch, a reinstall).
    ///   - now: the store's clock, ms since 1970 (the evidence's `storeTime`).
    public init(matrix: Matrix, matrixCase: MatrixCase, client: any StoreKitClient, side: any AppStoreSide, controls: any PurchaseControls,
                install: @escaping @Sendable () -> any AppUnderTest, settleLimit: Duration = .seconds(5),
                pollInterval: Duration = .milliseconds(50), now: @escaping @Sendable () -> Int64) {
        self.matrix = matrix
        self.matrixCase = matrixCase
        self.client = client
        self.side = side
        self.controls = controls
        self.install = install
        self.settleLimit = settleLimit
        self.pollInterval = pollInterval
        self.now = now
        self.app = install()
    }

    public func perform(_ step: Step, index: Int) async throws -> StepOutcome {
        if let limit = caseLimit { return .skipped(reason: limit) }
        if let account = step.account, account != matrixCase.account {
            return .skipped(reason: "this App Store has one account; the step acts as \(account)")
        }
        do {
            let outcome = try await performStep(step)
            // What the step set up ends before the next step starts, not in a task that may run after it.
            await controls.clearFailures()
            return outcome
        } catch let unsupported as AppStoreSideUnsupported {
            await controls.clearFailures()
            return .skipped(reason: unsupported.reason)
        } catch let error as AdapterError {
            await controls.clearFailures()
            throw error
        } catch {
            await controls.clearFailures()
            throw AdapterError("\(error)")
        }
    }

    /// Why no step of the case can run here: a case that models another environment's clock (Sandbox's renewal
    /// limit, TestFlight's daily renewals), or one whose account shares a family (no Family Sharing here).
    var caseLimit: String? {
        if let clock = matrix.storeSettings(for: matrixCase).clock, !clock.hasPrefix("xcode"), clock != "real" {
            return "the case models the \(clock) clock; this App Store runs on StoreKit Testing's"
        }
        let account = matrix.account(matrixCase.account)
        if account?.familyOrganizer != nil || matrix.accounts.contains(where: { $0.familyOrganizer == matrixCase.account }) {
            return "this App Store has no Family Sharing; the case's account belongs to a family"
        }
        return nil
    }

    func performStep(_ step: Step) async throws -> StepOutcome {
        if step.terminate != nil {
            throw AppStoreSideUnsupported("this App Store cannot kill the app at a point of its transaction handling")
        }
        if let failure = step.failNext { try await controls.failNext(failure) }
        var result: String?
        var message: String?
        // StoreKit Testing sends no App Store Server Notifications: there is nothing to observe.
        // Apple: https://developer.apple.com/documentation/appstoreservernotifications/environment
        var notObserved = ["notifications"]
        switch step.action {
        case .launch:
            guard !running else { throw AdapterError("the app is already running; use relaunch") }
            try await launch()
        case .relaunch:
            await quit()
            try await launch()
        case .quit:
            await quit()
        case .reinstall:
            await quit()
            app = install()
            try await launch()
        case .switchDevice:
            throw AppStoreSideUnsupported("this App Store has one device")
        case .purchase:
            guard let product = step.product else { throw AdapterError("purchase needs a product") }
            try await controls.setNextPurchaseOutcome(step.outcome ?? .success)
            let request = AppPurchaseRequest(productID: product, quantity: step.quantity ?? 1, offer: step.offer,
                                             appAccountToken: step.appAccountToken)
            do {
                if let report = try await app.purchase(request) {
                    (result, message) = (report.result, report.message)
                } else {
                    notObserved.append("result")
                }
            } catch {
                // A StoreKit error the app let through is what the customer saw (the look-alike records it so too).
                guard let refused = client.result(of: error) else { throw error }
                (result, message) = (refused, "\(error)")
            }
        case .restore:
            do {
                if let report = try await app.restore() {
                    (result, message) = (report.result, report.message)
                } else {
                    let grants = await !app.entitledProductIDs().isEmpty
                    (result, message) = grants ? ("restored", "Purchases restored") : ("nothingToRestore", "Nothing to restore")
                }
            } catch {
                guard let refused = client.result(of: error) else { throw error }
                (result, message) = (refused, "\(error)")
            }
        default:
            _ = try await side.perform(step, account: matrixCase.account)
        }
        await client.deliver()
        try await settle()
        if !running, step.action != .quit { message = message ?? "the app is not running" }
        return .observed(try await observe(result: result, message: message, notObserved: notObserved), modelledWallTimeMs: nil)
    }

    func launch() async throws {
        try await app.launch()
        running = true
    }

    func quit() async {
        if running { await app.quit() }
        running = false
    }

    /// Polls until the app's answer and the unfinished transactions stayed the same three times in a row.
    func settle() async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + settleLimit
        var last: (Set<String>, Int)?
        var same = 0
        while same < 3 {
            let seen = (running ? await app.entitledProductIDs() : [], await client.unfinishedCount())
            same = last.map { $0.0 == seen.0 && $0.1 == seen.1 } == true ? same + 1 : 1
            last = seen
            guard clock.now < deadline else { return }
            if same < 3 { try await Task.sleep(for: pollInterval) }
        }
    }

    /// What the app and StoreKit show now.
    func observe(result: String?, message: String?, notObserved: [String]) async throws -> Observation {
        let entitled = running ? await app.entitledProductIDs() : []
        let decoder = JSONDecoder()
        func transaction(_ data: Data) -> JWSTransactionDecodedPayload? { try? decoder.decode(JWSTransactionDecodedPayload.self, from: data) }
        let entitlements = await client.currentEntitlements().compactMap { transaction($0)?.productId }
        var transactions: [ObservedTransaction] = []
        for product in matrix.catalog.products {
            if let data = await client.latestTransaction(for: product.productID), let payload = transaction(data),
               let observed = ObservedTransaction(payload: payload) {
                transactions.append(observed)
            }
        }
        let renewals = await client.allTransactions().compactMap(transaction).filter { $0.transactionReason == "RENEWAL" }.count
        var status: [String: String] = [:]
        var renewalInfo: [String: ObservedRenewalInfo] = [:]
        var eligible: [String: Bool] = [:]
        for group in matrix.catalog.subscriptionGroups {
            eligible[group.name] = await client.isEligibleForIntroOffer(groupID: group.id)
            guard let latest = try await client.statuses(groupID: group.id).first else { continue }
            status[group.name] = latest.state
            if let data = latest.renewalInfo, let info = try? decoder.decode(JWSRenewalInfoDecodedPayload.self, from: data),
               let observed = ObservedRenewalInfo(payload: info) {
                renewalInfo[group.name] = observed
            }
        }
        // What the app shows for prices, when it reports them; the products' introductory offers are not read here.
        let shownPrices = running ? await app.displayedPrices() : [:]
        var notObserved = notObserved + ["introductoryOffer"]
        if shownPrices == nil { notObserved.append("displayPrice") }
        // StoreKit Testing sends no App Store Server Notifications.
        // Apple: https://developer.apple.com/documentation/appstoreservernotifications/environment
        var observation = Observation(
            access: matrix.access(for: entitled).sorted(), entitlements: entitlements.sorted(), result: result, subscriptionStatus: status,
            balance: await app.balances(), notifications: [], renewals: renewals, transactions: transactions, renewalInfo: renewalInfo,
            eligibleForIntroOffer: eligible, displayPrice: shownPrices ?? [:], serverNotifications: false, message: message,
            storeTime: now())
        observation.notObserved = notObserved
        return observation
    }

    public func close() async {
        await quit()
        await controls.clearFailures()
    }
}
