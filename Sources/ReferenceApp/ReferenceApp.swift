import Foundation
import MatrixModel
import SimulatedStoreKit
import Threading

/// An app that follows Apple's guidance for StoreKit 2, optionally with one known bug (``AppFault``), written
/// against StoreKit's API as a team's own app is.
///
/// The reference behaviour:
/// - the store's products load at launch; when that fails, the app still grants what the customer owns;
/// - a `Transaction.updates` listener starts at launch; what waits at launch (unfinished transactions first) is
///   handled before the app's first entitlement check;
/// - every transaction is verified, then delivered, then finished;
/// - entitlements come from `Transaction.currentEntitlements` at launch, after every transaction and whenever
///   the app shows its state (it also follows subscription status changes), excluding revoked and upgraded
///   transactions; a billing grace period grants access, billing retry does not;
/// - consumables are credited once per transaction ID and never appear in entitlements;
/// - non-renewing subscriptions expire at purchase date plus the duration the app gives them;
/// - dates are compared with the store's clock (``StoreClock``).
/// Apple: https://developer.apple.com/documentation/storekit/transaction/updates,
/// https://developer.apple.com/documentation/storekit/transaction/currententitlements,
/// https://developer.apple.com/documentation/storekit/transaction/finish()
public actor ReferenceApp: AppUnderTest {
    /// The app's configuration: which products grant which tiers, what consumables credit, how long
    /// non-renewing subscriptions last.
    public let matrix: Matrix
    /// The known bugs the app runs with (none: the reference app itself).
    public let faults: Set<AppFault>
    /// What the app keeps on disk on this device.
    var storage = AppStorage()
    /// The running app, or `nil` when it is not running.
    var process: AppProcess?
    /// The task that handles `Transaction.updates` while the app runs.
    var listener: Task<Void, Never>?
    /// The executor the app's own tasks (its updates listener) prefer; the shared pool, as on a device, by default.
    let preferredExecutor: PreferredExecutor

    /// Installs the app (a fresh install: empty storage), with one known bug or none.
    public init(matrix: Matrix, fault: AppFault?) {
        self.init(matrix: matrix, faults: fault.map { [$0] } ?? [])
    }

    /// Installs the app with every bug of `faults` at once (`--app-fault A --app-fault B`).
    ///
    /// - Parameter preferredExecutor: the executor the app's own tasks prefer (`Task(executorPreference:)`): a
    ///   run that keeps a case on one thread passes that thread, so an update reaching the listener does not wake
    ///   another core. Where the listener runs changes no answer: the runner waits for it to go idle either way.
    public init(matrix: Matrix, faults: some Sequence<AppFault>, preferring preferredExecutor: PreferredExecutor = .sharedPool) {
        self.matrix = matrix
        self.faults = Set(faults)
        self.preferredExecutor = preferredExecutor
    }

    /// Whether the app runs with `fault`.
    nonisolated func has(_ fault: AppFault) -> Bool {
        faults.contains(fault)
    }

    /// Where `handle` came from: the app's own `purchase()` call, or `Transaction.updates`.
    enum Source {
        case purchaseResult
        case update
    }

    // MARK: Lifecycle

    /// Starts the app: the updates listener (unless the fault starts it late) and the entitlement check.
    public func launch() async {
        process = AppProcess()
        _ = await products()
        if !has(.lateUpdatesListener) {
            await startListener()
        }
        if process != nil, refreshesAtLaunch {
            await refresh()
        }
    }

    /// Quits the app.
    public func quit() async {
        stop()
    }

    /// The process ends: its state and its listener go.
    func stop() {
        process = nil
        listener?.cancel()
        listener = nil
    }

    /// The app's store view opens (purchase or restore): faults that start work there start it now.
    func openStoreView() async {
        guard let process, !process.storeViewOpened else { return }
        self.process?.storeViewOpened = true
        if has(.lateUpdatesListener) {
            await startListener()
            await refresh()
        }
    }

    /// Starts the updates listener; what waits for it (unfinished transactions first) is handled before this
    /// returns, the rest as it arrives.
    func startListener() async {
        guard let process, !process.listening else { return }
        self.process?.listening = true
        var updates = Transaction.updates.makeAsyncIterator()
        while let update = updates.nextIfReady() {
            guard await handle(update, source: .update) else { return }
        }
        listener = preferredExecutor.task { [weak self, updates] in
            var updates = updates
            while let update = await updates.next() {
                guard let self, await self.handle(update, source: .update) else { return }
            }
        }
    }

    // MARK: Purchases and restore

    /// Buys a product through the app's store view.
    public func purchase(_ request: AppPurchaseRequest) async throws -> AppPurchaseReport? {
        guard process != nil else { throw AppHarnessError(notRunning) }
        await openStoreView()
        let result: Product.PurchaseResult
        do {
            guard let product = try await Product.products(for: [request.productID]).first else {
                throw AppHarnessError("the catalog has no product \"\(request.productID)\"")
            }
            result = try await product.purchase(options: request.options(for: product))
        } catch let error as Product.PurchaseError {
            let detail = error == .productUnavailable ? ": \(request.productID) is not for sale" : ""
            return AppPurchaseReport(result: "failed", message: error.description + detail)
        } catch let error as StoreKitError {
            // The store itself failing is the step's error, not the app's answer.
            if case .systemError(let cause) = error, cause is SimulatorFailure { throw cause }
            return AppPurchaseReport(result: "failed", message: error.description)
        }
        switch result {
        case .success(let transaction):
            if !has(.ignoresPurchaseResult) {
                await handle(transaction, source: .purchaseResult)
            }
            if has(.deferredChangeTreatedAsFailure), transaction.unsafePayloadValue.productID != request.productID {
                // The app expects the transaction of the product it sold; a change at the next renewal returns the
                // current product's.
                return AppPurchaseReport(result: "failed", message: "Purchase failed")
            }
            return AppPurchaseReport(result: "success", transactionId: String(transaction.unsafePayloadValue.id))
        case .userCancelled:
            return AppPurchaseReport(result: "userCancelled")
        case .pending:
            if has(.pendingTreatedAsFailure) {
                return AppPurchaseReport(result: "failed", message: "Purchase failed")
            }
            if has(.pendingUnlocks) {
                process?.unlockedWhilePending.insert(request.productID)
                process?.entitledProducts.insert(request.productID)
            }
            return AppPurchaseReport(result: "pending", message: "Waiting for approval")
        }
    }

    /// The Restore Purchases button: `AppStore.sync()`, then the entitlement check. With nothing to restore the
    /// app says so; that is neither an error nor a success.
    /// Apple: https://developer.apple.com/documentation/storekit/appstore/sync()
    public func restore() async throws -> AppRestoreReport? {
        guard process != nil else { throw AppHarnessError(notRunning) }
        await openStoreView()
        do {
            try await AppStore.sync()
        } catch let error as StoreKitError {
            // The customer cancelled signing in, or the App Store could not be reached: the app says so.
            return AppRestoreReport(result: "failed", message: error.description)
        }
        await refresh()
        if has(.restoreReportsSuccess) {
            return AppRestoreReport(result: "restored", message: "Purchases restored")
        }
        let restorable = await verified(Transaction.currentEntitlements).filter { grants($0) }
        return restorable.isEmpty ? AppRestoreReport(result: "nothingToRestore", message: "Nothing to restore")
                                  : AppRestoreReport(result: "restored", message: "Purchases restored")
    }

    var notRunning: String {
        let device = StoreKitSession.current?.deviceName ?? "this device"
        return "the app is not running on \(device); add a launch step first"
    }

    // MARK: Handling transactions

    /// Verifies, delivers and finishes one transaction. Returns false when the app no longer runs.
    @discardableResult
    func handle(_ result: VerificationResult<Transaction>, source: Source) async -> Bool {
        guard process != nil else { return false }
        guard case .verified(let transaction) = result else { return true }
        let transactionId = String(transaction.id)
        if has(.dropsProcessedTransactionIds) {
            if storage.processedTransactionIds.contains(transactionId) { return true }
            storage.processedTransactionIds.insert(transactionId)
        }
        if has(.ignoresFamilySharing), transaction.ownershipType == .familyShared {
            await transaction.finish()
            return true
        }
        let revoked = transaction.revocationDate != nil
        if revoked || transaction.isUpgraded {
            // Revoked or replaced: nothing to deliver; finish and re-check entitlements.
            await transaction.finish()
            if revoked { storage.recordedPurchases.remove(transaction.productID) }
            await afterTransaction(transaction, source: source)
            return true
        }
        var order: [HandlingStep] = has(.finishBeforeDelivery) ? [.finish, .deliver] : [.deliver, .finish]
        if has(.consumablesNeverFinished), transaction.productType == .consumable { order = [.deliver] }
        for operation in order {
            // A process killed at a finish() never goes on: when the call returns after the launch, the app has quit.
            guard process != nil else { return false }
            switch operation {
            case .deliver: deliver(transaction, source: source)
            case .finish: await transaction.finish()
            }
        }
        guard process != nil else { return false }
        await afterTransaction(transaction, source: source)
        return true
    }

    enum HandlingStep {
        case deliver
        case finish
    }

    /// Delivers the content of a verified transaction.
    func deliver(_ transaction: Transaction, source: Source) {
        if transaction.productType == .consumable {
            guard let spec = matrix.consumables[transaction.productID] else { return }
            let transactionId = String(transaction.id)
            let perEvent = has(.creditsConsumablePerEvent) || has(.consumablesNeverFinished)
            if perEvent || !storage.creditedTransactionIds.contains(transactionId) {
                storage.balances[spec.balance, default: 0] += spec.amount * transaction.purchasedQuantity
                storage.creditedTransactionIds.insert(transactionId)
            }
            return
        }
        storage.recordedPurchases.insert(transaction.productID)
        // The cachesExpirationDate fault caches the date only from its own purchases, missing renewals.
        if let expires = transaction.expirationDate, !has(.cachesExpirationDate) || source == .purchaseResult {
            storage.cachedExpiry[transaction.productID] = expires
        }
    }

    func afterTransaction(_ transaction: Transaction, source: Source) async {
        guard let process else { return }
        if has(.entitlementsReadOnceAtLaunch) {
            if transaction.productType != .consumable, transaction.revocationDate == nil {
                self.process?.entitledProducts.insert(transaction.productID)
            }
        } else if !(has(.lateUpdatesListener) && !process.storeViewOpened) {
            await refresh()
        }
    }

    // MARK: Entitlements

    /// Whether the fault re-reads entitlements when the app launches.
    var refreshesAtLaunch: Bool { !has(.lateUpdatesListener) }

    /// The app shows its state: the reference app re-checks entitlements first (it follows subscription status
    /// changes and checks again when it comes to the foreground). Faults whose entitlements live only in the
    /// app's own event handling do not.
    public func entitledProductIDs() async -> Set<String> {
        guard let process else { return [] }
        if refreshesOnDisplay(process) { await refresh() }
        return self.process?.entitledProducts ?? []
    }

    public func balances() async -> [String: Int] {
        storage.balances
    }

    /// The prices the store view shows: `Product.displayPrice` of the products as StoreKit loads them now (a price
    /// the developer changed shows at once), or with the `hardCodedPrice` fault the prices written into the app.
    /// Nothing while products cannot be loaded.
    /// Apple: https://developer.apple.com/documentation/storekit/product/displayprice
    public func displayedPrices() async -> [String: String]? {
        guard process != nil else { return [:] }
        if has(.hardCodedPrice) {
            return Dictionary(uniqueKeysWithValues: matrix.catalog.products.map { ($0.productID, "$" + $0.displayPrice) })
        }
        let current = (try? await Product.products(for: matrix.catalog.products.map(\.productID))) ?? process?.products ?? []
        return Dictionary(current.map { ($0.id, $0.displayPrice) }, uniquingKeysWith: { first, _ in first })
    }

    func refreshesOnDisplay(_ process: AppProcess) -> Bool {
        if [.entitlementsReadOnceAtLaunch, .ignoresPurchaseResult, .dropsProcessedTransactionIds, .entitlementSetNeverCleared].contains(where: has) {
            return false
        }
        return has(.lateUpdatesListener) ? process.storeViewOpened : true
    }

    /// The verified transactions of a sequence.
    func verified(_ transactions: Transaction.Transactions) async -> [Transaction] {
        var result: [Transaction] = []
        for await item in transactions {
            if case .verified(let transaction) = item { result.append(transaction) }
        }
        return result
    }

    /// The app's products, as StoreKit describes them: loaded at launch, and again when that failed (a failed
    /// load is not kept). Entitlements never depend on them.
    func products() async -> [Product] {
        if let loaded = process?.products { return loaded }
        guard let loaded = try? await Product.products(for: matrix.catalog.products.map(\.productID)) else { return [] }
        process?.products = loaded
        return loaded
    }

    /// Re-reads entitlements the way the app (or its fault) does.
    func refresh() async {
        guard process != nil else { return }
        let now = StoreClock.now
        var products: Set<String>
        if has(.localStorageEntitlements) {
            products = storage.recordedPurchases
        } else if has(.revocationLeftToServer) {
            // Expiry is checked; revocation is not, on the device: the app's server would handle REFUND.
            var latest: [String: Transaction] = [:]
            for transaction in await verified(Transaction.all) where transaction.productType != .consumable {
                if let seen = latest[transaction.productID], seen.purchaseDate > transaction.purchaseDate { continue }
                latest[transaction.productID] = transaction
            }
            products = Set(latest.values.filter { transaction in
                !transaction.isUpgraded && (transaction.expirationDate.map { $0 > now } ?? true) && grants(transaction, now: now)
            }.map(\.productID))
        } else {
            products = Set(await verified(Transaction.currentEntitlements).filter { grants($0, now: now) }.map(\.productID))
        }
        // Each fault that adds or removes entitlements does, in this order.
        if has(.grantsBillingRetry) {
            for status in await statuses() where status.state == .inBillingRetryPeriod {
                if case .verified(let info) = status.renewalInfo { products.insert(info.currentProductID) }
            }
        }
        if has(.keepsUpgradedProduct) {
            let all = await verified(Transaction.all)
            for product in await self.products() where all.contains(where: {
                $0.productID == product.id && $0.isUpgraded && $0.revocationDate == nil
            }) {
                guard let group = product.subscription?.subscriptionGroupID else { continue }
                if let status = (try? await Product.SubscriptionInfo.status(for: group))?.first,
                   status.state == .subscribed || status.state == .inGracePeriod {
                    products.insert(product.id)
                }
            }
        }
        if has(.expiredSubscriptionKept) {
            let all = await verified(Transaction.all)
            for product in await self.products() where product.type == .autoRenewable && all.contains(where: {
                $0.productID == product.id && $0.revocationDate == nil && !$0.isUpgraded
            }) {
                products.insert(product.id)
            }
        }
        if has(.cachesExpirationDate) {
            let renewable = Set(await self.products().filter { $0.type == .autoRenewable }.map(\.id))
            products = products.filter { !renewable.contains($0) }
            for (productID, expires) in storage.cachedExpiry where expires > now {
                products.insert(productID)
            }
        }
        if has(.computesExpiryFromCalendar) {
            let catalog = await self.products()
            let renewable = Set(catalog.filter { $0.type == .autoRenewable }.map(\.id))
            products = products.filter { !renewable.contains($0) }
            for status in await statuses() where status.state != .revoked {
                guard case .verified(let latest) = status.transaction, latest.revocationDate == nil,
                      let period = catalog.first(where: { $0.id == latest.productID })?.subscription?.subscriptionPeriod else { continue }
                if period.added(to: latest.purchaseDate) > now { products.insert(latest.productID) }
            }
        }
        if has(.firstStatusOnly) {
            // Each group's first status decides its subscription; any other status of the group is never read.
            let renewable = Set(await self.products().filter { $0.type == .autoRenewable }.map(\.id))
            products = products.filter { !renewable.contains($0) }
            for group in await groupIDs() {
                guard let first = (try? await Product.SubscriptionInfo.status(for: group))?.first,
                      first.state == .subscribed || first.state == .inGracePeriod,
                      case .verified(let latest) = first.transaction, latest.revocationDate == nil, grants(latest, now: now) else { continue }
                products.insert(latest.productID)
            }
        }
        if has(.tierFromNewestTransaction) {
            // A tier of several groups follows the newest transaction among the products that grant it: refunded, the
            // tier goes, whatever the other group's subscription does.
            let all = await verified(Transaction.all)
            for tier in matrix.tiers where Self.hasSeveralSources(tier, in: matrix.catalog) {
                let granting = Set(tier.productIDs)
                // Newest by purchase date, then by transaction ID (later purchases have higher IDs).
                guard let newest = all.filter({ granting.contains($0.productID) })
                    .max(by: { ($0.purchaseDate, $0.id) < ($1.purchaseDate, $1.id) }) else { continue }
                if newest.revocationDate != nil { products.subtract(granting) }
            }
        }
        if has(.pendingUnlocks) {
            products.formUnion(process?.unlockedWhilePending ?? [])
        }
        if has(.entitlementSetNeverCleared) {
            process?.entitledProducts.formUnion(products)
        } else {
            process?.entitledProducts = products
        }
    }

    /// Whether a tier is granted by products that do not replace each other: subscriptions of two groups, or a
    /// subscription and another product (``CatalogRequirement/tierOfSeveralSources``).
    nonisolated static func hasSeveralSources(_ tier: Tier, in catalog: StoreKitConfiguration) -> Bool {
        let sources = Set(tier.productIDs.compactMap { id in catalog.product(id).map { $0.subscriptionGroupID ?? "product:" + id } })
        return sources.count >= 2 && tier.productIDs.contains { catalog.product($0)?.type == .autoRenewable }
    }

    /// The subscription groups of the app's products, in product order.
    func groupIDs() async -> [String] {
        var groups: [String] = []
        for product in await products() {
            if let group = product.subscription?.subscriptionGroupID, !groups.contains(group) { groups.append(group) }
        }
        return groups
    }

    /// The statuses of every subscription group of the app's products.
    func statuses() async -> [Product.SubscriptionInfo.Status] {
        var result: [Product.SubscriptionInfo.Status] = []
        for group in await groupIDs() { result += (try? await Product.SubscriptionInfo.status(for: group)) ?? [] }
        return result
    }

    /// Whether the app grants access for an entitlement: its own expiry for non-renewing subscriptions, and
    /// the faults that filter entitlements.
    nonisolated func grants(_ transaction: Transaction, now: Date = StoreClock.now) -> Bool {
        if has(.ignoresFamilySharing), transaction.ownershipType == .familyShared { return false }
        switch transaction.productType {
        case .nonRenewable:
            guard !has(.nonRenewingNeverExpires), let spec = matrix.nonRenewing[transaction.productID] else { return true }
            return spec.duration.added(to: transaction.purchaseDate) > now
        case .autoRenewable:
            if has(.deniesGracePeriod), let expires = transaction.expirationDate { return expires > now }
            return true
        default:
            return true
        }
    }
}

extension ISO8601Duration {
    /// `date` plus this duration, in UTC calendar arithmetic (``added(to:)`` on ms since 1970).
    func added(to date: Date) -> Date {
        Date(timeIntervalSince1970: Double(added(to: Int64((date.timeIntervalSince1970 * 1000).rounded()))) / 1000)
    }
}

extension Product.SubscriptionPeriod {
    /// `date` plus one period, in UTC calendar arithmetic.
    func added(to date: Date) -> Date {
        let duration: ISO8601Duration? = switch unit {
        case .day: ISO8601Duration("P\(value)D")
        case .week: ISO8601Duration("P\(value)W")
        case .month: ISO8601Duration("P\(value)M")
        case .year: ISO8601Duration("P\(value)Y")
        }
        return duration?.added(to: date) ?? date
    }
}
