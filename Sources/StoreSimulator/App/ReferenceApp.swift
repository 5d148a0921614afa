import MatrixCore

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
/// Apple: https://developer.apple.com/documentation/storekit/transaction/updates,
/// https://developer.apple.com/documentation/storekit/transaction/currententitlements,
/// https://developer.apple.com/documentation/storekit/transaction/finish()
public final class ReferenceApp {
    public let matrix: Matrix
    public let fault: AppFault?
    let store: AppStoreSimulator

    public init(matrix: Matrix, store: AppStoreSimulator, fault: AppFault?) {
        self.matrix = matrix
        self.store = store
        self.fault = fault
    }

    /// Where `handle` came from: the app's own `purchase()` call, or `Transaction.updates`.
    enum Source {
        case purchaseResult
        case update
    }

    // MARK: Lifecycle

    /// Starts the app: the updates listener (unless the fault starts it late) and the entitlement check.
    public func launch(_ device: Device) {
        let process = AppProcess()
        device.process = process
        if fault != .lateUpdatesListener {
            startListener(device)
        }
        if device.process != nil, refreshesAtLaunch {
            refresh(device)
        }
    }

    /// Quits the app.
    public func quit(_ device: Device) {
        device.process = nil
    }

    /// The app's store view opens (purchase or restore): faults that start work there start it now.
    func openStoreView(_ device: Device) {
        guard let process = device.process, !process.storeViewOpened else { return }
        process.storeViewOpened = true
        if fault == .lateUpdatesListener {
            startListener(device)
            refresh(device)
        }
    }

    /// Starts the updates listener: unfinished transactions arrive first, then what waited in the log.
    func startListener(_ device: Device) {
        guard let process = device.process, !process.listening else { return }
        process.listening = true
        var delivered = Set<String>()
        for transaction in store.unfinishedTransactions(account: device.account) where delivered.insert(transaction.transactionId).inserted {
            guard handle(device, transaction.transactionId, source: .update) else { return }
        }
        deliverPendingUpdates(device, skipping: delivered)
    }

    /// Delivers what arrived in `Transaction.updates` since the app last received updates, if it listens.
    public func deliverPendingUpdates(_ device: Device, skipping alreadyDelivered: Set<String> = []) {
        guard device.process?.listening == true else { return }
        var skip = alreadyDelivered
        while device.updateCursor < store.updateLog.count {
            let entry = store.updateLog[device.updateCursor]
            device.updateCursor += 1
            guard entry.account == device.account, entry.excludingDevice != device.name else { continue }
            if skip.remove(entry.transactionId) != nil { continue }
            guard handle(device, entry.transactionId, source: .update) else { return }
        }
    }

    // MARK: Purchases and restore

    /// What the app shows after a purchase attempt.
    public struct PurchaseReport: Sendable, Hashable {
        /// `success`, `userCancelled`, `pending` or `failed`, as the app reports it.
        public var result: String
        public var message: String?
        public var transactionId: String?
    }

    /// Buys a product through the app's store view.
    public func purchase(_ device: Device, step: Step) throws(StoreError) -> PurchaseReport {
        guard let product = step.product else { throw StoreError("purchase needs a product") }
        guard device.process != nil else { throw StoreError("the app is not running on \(device.name); add a launch step first") }
        openStoreView(device)
        let resolution = try store.purchase(account: device.account, productID: product, outcome: step.outcome ?? .success,
                                            quantity: step.quantity ?? 1, offer: step.offer, appAccountToken: step.appAccountToken,
                                            device: device.name)
        switch resolution {
        case .success(let id):
            if fault != .ignoresPurchaseResult {
                _ = handle(device, id, source: .purchaseResult, terminate: step.terminate)
            }
            return PurchaseReport(result: "success", message: nil, transactionId: id)
        case .userCancelled:
            return PurchaseReport(result: "userCancelled", message: nil)
        case .pending:
            if fault == .pendingTreatedAsFailure {
                return PurchaseReport(result: "failed", message: "Purchase failed")
            }
            if fault == .pendingUnlocks {
                device.process?.unlockedWhilePending.insert(product)
                device.process?.entitledProducts.insert(product)
            }
            return PurchaseReport(result: "pending", message: "Waiting for approval")
        case .failed(let error):
            return PurchaseReport(result: "failed", message: error)
        }
    }

    /// The Restore Purchases button: `AppStore.sync()`, then the entitlement check. With nothing to restore the
    /// app says so; that is neither an error nor a success.
    /// Apple: https://developer.apple.com/documentation/storekit/appstore/sync()
    public func restore(_ device: Device) throws(StoreError) -> (result: String, message: String) {
        guard device.process != nil else { throw StoreError("the app is not running on \(device.name); add a launch step first") }
        openStoreView(device)
        deliverPendingUpdates(device)
        refresh(device)
        if fault == .restoreReportsSuccess {
            return ("restored", "Purchases restored")
        }
        let restorable = store.currentEntitlements(account: device.account).filter { grants($0, on: device) }
        return restorable.isEmpty ? ("nothingToRestore", "Nothing to restore") : ("restored", "Purchases restored")
    }

    // MARK: Handling transactions

    /// Verifies, delivers and finishes one transaction. Returns false when the app was terminated.
    @discardableResult
    func handle(_ device: Device, _ transactionId: String, source: Source, terminate: TerminationPoint? = nil) -> Bool {
        guard device.process != nil, let transaction = store.transaction(transactionId) else { return device.process != nil }
        if fault == .dropsProcessedTransactionIds {
            if device.storage.processedTransactionIds.contains(transactionId) { return true }
            device.storage.processedTransactionIds.insert(transactionId)
        }
        if fault == .ignoresFamilySharing, transaction.inAppOwnershipType == "FAMILY_SHARED" {
            store.finish(transactionId)
            return true
        }
        if transaction.isRevoked || transaction.isUpgraded {
            // Revoked or replaced: nothing to deliver; finish and re-check entitlements.
            store.finish(transactionId)
            if transaction.isRevoked { device.storage.recordedPurchases.remove(transaction.productId) }
            afterTransaction(device, transaction, source: source)
            return true
        }
        var order: [HandlingStep] = fault == .finishBeforeDelivery ? [.finish, .deliver] : [.deliver, .finish]
        if fault == .consumablesNeverFinished, transaction.productType == .consumable { order = [.deliver] }
        for operation in order {
            if (operation == .deliver && terminate == .beforeDelivery) || (operation == .finish && terminate == .beforeFinish) {
                quit(device)
                return false
            }
            switch operation {
            case .deliver: deliver(device, transaction, source: source)
            case .finish: store.finish(transactionId)
            }
        }
        afterTransaction(device, transaction, source: source)
        return true
    }

    enum HandlingStep {
        case deliver
        case finish
    }

    /// Delivers the content of a verified transaction.
    func deliver(_ device: Device, _ transaction: StoreTransaction, source: Source) {
        if transaction.productType == .consumable {
            guard let spec = matrix.consumables[transaction.productId] else { return }
            let perEvent = fault == .creditsConsumablePerEvent || fault == .consumablesNeverFinished
            if perEvent || !device.storage.creditedTransactionIds.contains(transaction.transactionId) {
                device.storage.balances[spec.balance, default: 0] += spec.amount * transaction.quantity
                device.storage.creditedTransactionIds.insert(transaction.transactionId)
            }
            return
        }
        device.storage.recordedPurchases.insert(transaction.productId)
        // The cachesExpirationDate fault caches the date only from its own purchases, missing renewals.
        if let expires = transaction.expiresDate, fault != .cachesExpirationDate || source == .purchaseResult {
            device.storage.cachedExpiry[transaction.productId] = expires
        }
    }

    func afterTransaction(_ device: Device, _ transaction: StoreTransaction, source: Source) {
        guard let process = device.process else { return }
        switch fault {
        case .entitlementsReadOnceAtLaunch:
            if transaction.productType != .consumable, !transaction.isRevoked { process.entitledProducts.insert(transaction.productId) }
        case .lateUpdatesListener where !process.storeViewOpened:
            break
        default:
            refresh(device)
        }
    }

    // MARK: Entitlements

    /// Whether the fault re-reads entitlements when the app launches.
    var refreshesAtLaunch: Bool { fault != .lateUpdatesListener }

    /// The app shows its state: the reference app re-checks entitlements first (it follows subscription status
    /// changes and checks again when it comes to the foreground). Faults whose entitlements live only in the
    /// app's own event handling do not.
    public func access(on device: Device) -> [String] {
        guard let process = device.process else { return [] }
        if refreshesOnDisplay(process) { refresh(device) }
        return matrix.access(for: process.entitledProducts)
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
    func refresh(_ device: Device) {
        guard let process = device.process else { return }
        var products: Set<String>
        switch fault {
        case .localStorageEntitlements:
            products = device.storage.recordedPurchases
        default:
            products = Set(store.currentEntitlements(account: device.account).filter { grants($0, on: device) }.map(\.productId))
        }
        switch fault {
        case .grantsBillingRetry:
            for sub in store.subscriptions.values where sub.account == device.account && sub.state == .inBillingRetryPeriod {
                products.insert(sub.productId)
            }
        case .keepsUpgradedProduct:
            for product in store.catalog.products where store.lastTransaction(account: device.account, productID: product.productID, where: {
                $0.isUpgraded && !$0.isRevoked
            }) != nil {
                if let sub = store.subscription(account: device.account, product: product.productID), sub.state.grantsAccess {
                    products.insert(product.productID)
                }
            }
        case .expiredSubscriptionKept:
            for product in store.catalog.products where product.type == .autoRenewable && store.lastTransaction(
                account: device.account, productID: product.productID, where: { !$0.isRevoked && !$0.isUpgraded }) != nil {
                products.insert(product.productID)
            }
        case .cachesExpirationDate:
            products = products.filter { store.catalog.product($0)?.type != .autoRenewable }
            for (productID, expires) in device.storage.cachedExpiry where expires > store.now {
                products.insert(productID)
            }
        case .computesExpiryFromCalendar:
            products = products.filter { store.catalog.product($0)?.type != .autoRenewable }
            for sub in store.subscriptions.values where sub.account == device.account && sub.state != .revoked {
                guard let latest = store.transaction(sub.latestTransactionId), !latest.isRevoked,
                      let period = store.catalog.product(latest.productId)?.recurringSubscriptionPeriod else { continue }
                if period.added(to: latest.purchaseDate) > store.now { products.insert(latest.productId) }
            }
        case .pendingUnlocks:
            products.formUnion(process.unlockedWhilePending)
        default:
            break
        }
        if fault == .entitlementSetNeverCleared {
            process.entitledProducts.formUnion(products)
        } else {
            process.entitledProducts = products
        }
    }

    /// Whether the app grants access for an entitlement: its own expiry for non-renewing subscriptions, and
    /// the faults that filter entitlements.
    func grants(_ transaction: StoreTransaction, on device: Device) -> Bool {
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
