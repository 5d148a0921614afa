import MatrixModel
import StoreSimulator

/// An app that follows Apple's guidance for StoreKit 2, optionally with one known bug (``AppFault``).
///
/// The reference behaviour:
/// - a `Transaction.updates` listener starts at launch and receives unfinished transactions first;
/// - every transaction is verified, then delivered, then finished;
/// - entitlements come from `Transaction.currentEntitlements` at launch, after every transaction and whenever
///   the app shows its state (it also follows subscription status changes), excluding revoked and upgraded
///   transactions; a billing grace period grants access, billing retry does not;
/// - consumables are credited once per transaction ID and never appear in entitlements;
/// - non-renewing subscriptions expire at purchase date plus the duration the app gives them.
///
/// It reaches the store only through its ``StoreConnection``, as a team's own app does through StoreKit.
/// Apple: https://developer.apple.com/documentation/storekit/transaction/updates,
/// https://developer.apple.com/documentation/storekit/transaction/currententitlements,
/// https://developer.apple.com/documentation/storekit/transaction/finish()
public final class ReferenceApp: AppUnderTest {
    /// The app's configuration: which products grant which tiers, what consumables credit, how long
    /// non-renewing subscriptions last.
    public let matrix: Matrix
    public let fault: AppFault?
    let store: StoreConnection
    /// What the app keeps on disk on this device.
    var storage = AppStorage()
    /// The running app, or `nil` when it is not running.
    var process: AppProcess?

    /// Installs the app on the device `store` belongs to.
    public init(matrix: Matrix, store: StoreConnection, fault: AppFault?) {
        self.matrix = matrix
        self.store = store
        self.fault = fault
    }

    /// Where `handle` came from: the app's own `purchase()` call, or `Transaction.updates`.
    enum Source {
        case purchaseResult
        case update
    }

    public var isRunning: Bool { process != nil }

    // MARK: Lifecycle

    /// Starts the app: the updates listener (unless the fault starts it late) and the entitlement check.
    public func launch() async {
        process = AppProcess()
        if fault != .lateUpdatesListener {
            startListener()
        }
        if process != nil, refreshesAtLaunch {
            refresh()
        }
    }

    /// Quits the app.
    public func quit() async {
        process = nil
        store.stopListening()
    }

    /// The app's store view opens (purchase or restore): faults that start work there start it now.
    func openStoreView() {
        guard let process, !process.storeViewOpened else { return }
        self.process?.storeViewOpened = true
        if fault == .lateUpdatesListener {
            startListener()
            refresh()
        }
    }

    /// Starts the updates listener: unfinished transactions arrive first, then what waited for this device.
    func startListener() {
        guard let process, !process.listening else { return }
        self.process?.listening = true
        store.startListening { [weak self] transaction in
            self?.handle(transaction, source: .update) ?? false
        }
    }

    // MARK: Purchases and restore

    /// Buys a product through the app's store view.
    public func purchase(_ request: AppPurchaseRequest) async throws(StoreError) -> AppPurchaseReport {
        guard process != nil else { throw StoreError("the app is not running on \(store.deviceName); add a launch step first") }
        openStoreView()
        let result = try store.purchase(productID: request.productID, quantity: request.quantity, offer: request.offer,
                                        appAccountToken: request.appAccountToken)
        switch result {
        case .success(let transaction):
            if fault != .ignoresPurchaseResult {
                _ = handle(transaction, source: .purchaseResult, terminate: request.terminate)
            }
            return AppPurchaseReport(result: "success", transactionId: transaction.transactionId)
        case .userCancelled:
            return AppPurchaseReport(result: "userCancelled")
        case .pending:
            if fault == .pendingTreatedAsFailure {
                return AppPurchaseReport(result: "failed", message: "Purchase failed")
            }
            if fault == .pendingUnlocks {
                process?.unlockedWhilePending.insert(request.productID)
                process?.entitledProducts.insert(request.productID)
            }
            return AppPurchaseReport(result: "pending", message: "Waiting for approval")
        case .failed(let error):
            return AppPurchaseReport(result: "failed", message: error)
        }
    }

    /// The Restore Purchases button: `AppStore.sync()`, then the entitlement check. With nothing to restore the
    /// app says so; that is neither an error nor a success.
    /// Apple: https://developer.apple.com/documentation/storekit/appstore/sync()
    public func restore() async throws(StoreError) -> AppRestoreReport {
        guard process != nil else { throw StoreError("the app is not running on \(store.deviceName); add a launch step first") }
        openStoreView()
        store.deliverPendingUpdates()
        refresh()
        if fault == .restoreReportsSuccess {
            return AppRestoreReport(result: "restored", message: "Purchases restored")
        }
        let restorable = store.currentEntitlements().filter(grants)
        return restorable.isEmpty ? AppRestoreReport(result: "nothingToRestore", message: "Nothing to restore")
                                  : AppRestoreReport(result: "restored", message: "Purchases restored")
    }

    // MARK: Handling transactions

    /// Verifies, delivers and finishes one transaction. Returns false when the app was terminated.
    @discardableResult
    func handle(_ transaction: StoreTransaction, source: Source, terminate: TerminationPoint? = nil) -> Bool {
        guard process != nil else { return false }
        // The transaction as the store holds it now: a refund or an upgrade may have changed it since it was sent.
        guard let transaction = store.transaction(transaction.transactionId) else { return true }
        let transactionId = transaction.transactionId
        if fault == .dropsProcessedTransactionIds {
            if storage.processedTransactionIds.contains(transactionId) { return true }
            storage.processedTransactionIds.insert(transactionId)
        }
        if fault == .ignoresFamilySharing, transaction.inAppOwnershipType == "FAMILY_SHARED" {
            store.finish(transaction)
            return true
        }
        if transaction.isRevoked || transaction.isUpgraded {
            // Revoked or replaced: nothing to deliver; finish and re-check entitlements.
            store.finish(transaction)
            if transaction.isRevoked { storage.recordedPurchases.remove(transaction.productId) }
            afterTransaction(transaction, source: source)
            return true
        }
        var order: [HandlingStep] = fault == .finishBeforeDelivery ? [.finish, .deliver] : [.deliver, .finish]
        if fault == .consumablesNeverFinished, transaction.productType == .consumable { order = [.deliver] }
        for operation in order {
            if (operation == .deliver && terminate == .beforeDelivery) || (operation == .finish && terminate == .beforeFinish) {
                process = nil
                store.stopListening()
                return false
            }
            switch operation {
            case .deliver: deliver(transaction, source: source)
            case .finish: store.finish(transaction)
            }
        }
        afterTransaction(transaction, source: source)
        return true
    }

    enum HandlingStep {
        case deliver
        case finish
    }

    /// Delivers the content of a verified transaction.
    func deliver(_ transaction: StoreTransaction, source: Source) {
        if transaction.productType == .consumable {
            guard let spec = matrix.consumables[transaction.productId] else { return }
            let perEvent = fault == .creditsConsumablePerEvent || fault == .consumablesNeverFinished
            if perEvent || !storage.creditedTransactionIds.contains(transaction.transactionId) {
                storage.balances[spec.balance, default: 0] += spec.amount * transaction.quantity
                storage.creditedTransactionIds.insert(transaction.transactionId)
            }
            return
        }
        storage.recordedPurchases.insert(transaction.productId)
        // The cachesExpirationDate fault caches the date only from its own purchases, missing renewals.
        if let expires = transaction.expiresDate, fault != .cachesExpirationDate || source == .purchaseResult {
            storage.cachedExpiry[transaction.productId] = expires
        }
    }

    func afterTransaction(_ transaction: StoreTransaction, source: Source) {
        guard let process else { return }
        switch fault {
        case .entitlementsReadOnceAtLaunch:
            if transaction.productType != .consumable, !transaction.isRevoked { self.process?.entitledProducts.insert(transaction.productId) }
        case .lateUpdatesListener where !process.storeViewOpened:
            break
        default:
            refresh()
        }
    }

    // MARK: Entitlements

    /// Whether the fault re-reads entitlements when the app launches.
    var refreshesAtLaunch: Bool { fault != .lateUpdatesListener }

    /// The app shows its state: the reference app re-checks entitlements first (it follows subscription status
    /// changes and checks again when it comes to the foreground). Faults whose entitlements live only in the
    /// app's own event handling do not.
    public func entitledProductIDs() async -> Set<String> {
        guard let process else { return [] }
        if refreshesOnDisplay(process) { refresh() }
        return self.process?.entitledProducts ?? []
    }

    public func balances() async -> [String: Int] {
        storage.balances
    }

    func refreshesOnDisplay(_ process: AppProcess) -> Bool {
        switch fault {
        case .entitlementsReadOnceAtLaunch, .ignoresPurchaseResult, .dropsProcessedTransactionIds, .entitlementSetNeverCleared:
            false
        case .lateUpdatesListener:
            process.storeViewOpened
        default:
            true
        }
    }

    /// Re-reads entitlements the way the app (or its fault) does.
    func refresh() {
        guard process != nil else { return }
        var products: Set<String>
        switch fault {
        case .localStorageEntitlements:
            products = storage.recordedPurchases
        default:
            products = Set(store.currentEntitlements().filter(grants).map(\.productId))
        }
        switch fault {
        case .grantsBillingRetry:
            for status in store.subscriptionStatuses() where status.state == .inBillingRetryPeriod {
                products.insert(status.renewalInfo.productId)
            }
        case .keepsUpgradedProduct:
            let all = store.allTransactions()
            let statuses = store.subscriptionStatuses()
            for product in store.catalog.products where all.contains(where: {
                $0.productId == product.productID && $0.isUpgraded && !$0.isRevoked
            }) {
                if let status = statuses.first(where: { $0.groupID == product.subscriptionGroupID }), status.state.grantsAccess {
                    products.insert(product.productID)
                }
            }
        case .expiredSubscriptionKept:
            let all = store.allTransactions()
            for product in store.catalog.products where product.type == .autoRenewable && all.contains(where: {
                $0.productId == product.productID && !$0.isRevoked && !$0.isUpgraded
            }) {
                products.insert(product.productID)
            }
        case .cachesExpirationDate:
            products = products.filter { store.catalog.product($0)?.type != .autoRenewable }
            for (productID, expires) in storage.cachedExpiry where expires > store.now {
                products.insert(productID)
            }
        case .computesExpiryFromCalendar:
            products = products.filter { store.catalog.product($0)?.type != .autoRenewable }
            for status in store.subscriptionStatuses() where status.state != .revoked {
                let latest = status.transaction
                guard !latest.isRevoked, let period = store.catalog.product(latest.productId)?.recurringSubscriptionPeriod else { continue }
                if period.added(to: latest.purchaseDate) > store.now { products.insert(latest.productId) }
            }
        case .pendingUnlocks:
            products.formUnion(process?.unlockedWhilePending ?? [])
        default:
            break
        }
        if fault == .entitlementSetNeverCleared {
            process?.entitledProducts.formUnion(products)
        } else {
            process?.entitledProducts = products
        }
    }

    /// Whether the app grants access for an entitlement: its own expiry for non-renewing subscriptions, and
    /// the faults that filter entitlements.
    func grants(_ transaction: StoreTransaction) -> Bool {
        if fault == .ignoresFamilySharing, transaction.inAppOwnershipType == "FAMILY_SHARED" { return false }
        switch transaction.productType {
        case .nonRenewable:
            guard fault != .nonRenewingNeverExpires, let spec = matrix.nonRenewing[transaction.productId] else { return true }
            return spec.duration.added(to: transaction.purchaseDate) > store.now
        case .autoRenewable:
            if fault == .deniesGracePeriod, let expires = transaction.expiresDate { return expires > store.now }
            return true
        case .nonConsumable, .consumable:
            return true
        }
    }
}
