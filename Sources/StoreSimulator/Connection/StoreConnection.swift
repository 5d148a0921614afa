import MatrixModel

/// StoreKit on one device, signed in to one account, as an app sees it: the only way an app reaches the
/// simulated App Store.
///
/// An app asks what StoreKit 2 answers — products, purchases, `Transaction.currentEntitlements`,
/// `Transaction.all`, `Transaction.latest(for:)`, `Transaction.unfinished`, subscription statuses, `finish()` —
/// and receives `Transaction.updates` through a listener. It never reads the store's tables: the App Store side
/// of a case (renewals, refunds, Ask to Buy answers, time) is the session's to perform on ``store``.
///
/// A connection is owned by the task that runs its case, like the store it belongs to.
public final class StoreConnection {
    /// The device's name, unique in its case (`account/device-1`).
    public let deviceName: String
    /// The account the device is signed in to.
    public let account: String
    let store: AppStoreSimulator
    /// How the customer answers the next purchase sheet (the session sets it before asking the app to buy).
    public var nextPurchaseOutcome: PurchaseOutcome = .success
    /// The first update-log entry this device has not received yet.
    var updateCursor: Int
    /// The listener of the running app, while it listens.
    var listener: ((StoreTransaction) -> Bool)?

    /// - Parameters:
    ///   - store: the case's store.
    ///   - deviceName: the device's name; purchases made on it are not re-emitted through its `updates`.
    ///   - account: the account it is signed in to.
    public init(store: AppStoreSimulator, deviceName: String, account: String) {
        self.store = store
        self.deviceName = deviceName
        self.account = account
        self.updateCursor = store.updateLog.count
    }

    /// The store's clock, ms since 1970: the time an app reads to compare with store dates.
    public var now: Int64 { store.now }

    /// The catalog the store sells from (`Product.products(for:)` answers from it).
    public var catalog: StoreKitConfiguration { store.catalog }

    // MARK: Purchases

    /// `Product.purchase(options:)` on this device, answered as the customer's ``nextPurchaseOutcome`` says.
    ///
    /// A successful purchase's transaction is returned here and not re-emitted through this device's `updates`.
    /// Apple: https://developer.apple.com/documentation/storekit/product/purchase(options:)
    /// - Throws: ``StoreError`` when the product does not exist or the offer cannot be applied.
    public func purchase(productID: String, quantity: Int = 1, offer: String? = nil,
                         appAccountToken: String? = nil) throws(StoreError) -> StorePurchaseResult {
        let outcome = nextPurchaseOutcome
        nextPurchaseOutcome = .success
        switch try store.purchase(account: account, productID: productID, outcome: outcome, quantity: quantity, offer: offer,
                                  appAccountToken: appAccountToken, device: deviceName) {
        case .success(let id):
            guard let transaction = store.transaction(id) else { throw StoreError("the purchase's transaction \(id) is missing") }
            return .success(transaction)
        case .userCancelled: return .userCancelled
        case .pending: return .pending
        case .failed(let message): return .failed(message)
        }
    }

    // MARK: Transactions

    /// `Transaction.currentEntitlements`. Apple: https://developer.apple.com/documentation/storekit/transaction/currententitlements
    public func currentEntitlements() -> [StoreTransaction] {
        store.currentEntitlements(account: account)
    }

    /// `Transaction.all`. Apple: https://developer.apple.com/documentation/storekit/transaction/all
    public func allTransactions() -> [StoreTransaction] {
        store.allTransactions(account: account)
    }

    /// `Transaction.latest(for:)`. Apple: https://developer.apple.com/documentation/storekit/transaction/latest(for:)
    public func latestTransaction(for productID: String) -> StoreTransaction? {
        store.latestTransaction(account: account, productID: productID)
    }

    /// `Transaction.unfinished`. Apple: https://developer.apple.com/documentation/storekit/transaction/unfinished
    public func unfinishedTransactions() -> [StoreTransaction] {
        store.unfinishedTransactions(account: account)
    }

    /// The transaction as the store holds it now (a refund or an upgrade changes a transaction already seen).
    public func transaction(_ id: String) -> StoreTransaction? {
        guard let transaction = store.transaction(id), transaction.account == account else { return nil }
        return transaction
    }

    /// `Transaction.finish()`. Apple: https://developer.apple.com/documentation/storekit/transaction/finish()
    public func finish(_ transaction: StoreTransaction) {
        guard transaction.account == account else { return }
        store.finish(transaction.transactionId)
    }

    // MARK: Subscriptions

    /// `Product.SubscriptionInfo.status` of every subscription group the account has subscribed in, in group order.
    /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/status
    public func subscriptionStatuses() -> [StoreSubscriptionStatus] {
        store.subscriptions.filter { $0.key.account == account }.sorted { $0.key < $1.key }.compactMap { key, sub in
            store.transaction(sub.latestTransactionId).map { StoreSubscriptionStatus(groupID: key.groupID, subscription: sub, transaction: $0) }
        }
    }

    /// `Product.SubscriptionInfo.isEligibleForIntroOffer` for the group of `productID`.
    /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/iseligibleforintrooffer
    public func isEligibleForIntroOffer(productID: String) -> Bool {
        store.isEligibleForIntroOffer(account: account, productID: productID)
    }

    // MARK: Transaction.updates

    /// Whether a listener receives this device's updates.
    public var isListening: Bool { listener != nil }

    /// Starts the app's `Transaction.updates` listener: the account's unfinished transactions arrive first, then
    /// what waited for this device, each once. `receive` returns false when the app stopped (it was terminated);
    /// delivery then stops with the rest left for the next listener.
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/updates
    public func startListening(_ receive: @escaping (StoreTransaction) -> Bool) {
        guard listener == nil else { return }
        listener = receive
        var delivered = Set<String>()
        for transaction in unfinishedTransactions() where delivered.insert(transaction.transactionId).inserted {
            guard listener != nil, receive(transaction) else { return }
        }
        deliverPendingUpdates(skipping: delivered)
    }

    /// Stops the listener: the app quit. Updates wait for the next one.
    public func stopListening() {
        listener = nil
    }

    /// Delivers what arrived for this device since it last received updates, if a listener runs: renewals,
    /// purchases on other devices, Ask to Buy approvals, refunds, revocations.
    ///
    /// - Parameter alreadyDelivered: transactions the listener received at its start; they are not delivered again.
    public func deliverPendingUpdates(skipping alreadyDelivered: Set<String> = []) {
        var skip = alreadyDelivered
        while let receive = listener, updateCursor < store.updateLog.count {
            let entry = store.updateLog[updateCursor]
            updateCursor += 1
            guard entry.account == account, entry.excludingDevice != deviceName else { continue }
            if skip.remove(entry.transactionId) != nil { continue }
            guard let transaction = store.transaction(entry.transactionId) else { continue }
            guard receive(transaction) else { return }
        }
    }

    /// Forgets the updates that waited for this device: the app was deleted, and a new install starts from now
    /// (its unfinished transactions still arrive when its listener starts).
    public func discardPendingUpdates() {
        updateCursor = store.updateLog.count
    }
}

/// How the App Store answered `Product.purchase(options:)`.
/// Apple: https://developer.apple.com/documentation/storekit/product/purchaseresult
public enum StorePurchaseResult: Sendable, Hashable {
    /// The purchase completed; its transaction.
    case success(StoreTransaction)
    case userCancelled
    /// Waiting for approval (Ask to Buy); the transaction will arrive through `Transaction.updates`.
    case pending
    /// `purchase()` threw a StoreKit error; the message names it.
    case failed(String)
}

/// One subscription group's `Product.SubscriptionInfo.Status`: its state, latest transaction and renewal info.
/// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/status
public struct StoreSubscriptionStatus: Sendable, Hashable {
    /// The subscription group's identifier.
    public var groupID: String
    /// `Product.SubscriptionInfo.RenewalState`.
    public var state: RenewalState
    /// The subscription's latest transaction.
    public var transaction: StoreTransaction
    /// The renewal info fields.
    public var renewalInfo: ObservedRenewalInfo

    init(groupID: String, subscription: SubscriptionState, transaction: StoreTransaction) {
        self.groupID = groupID
        self.state = subscription.state
        self.transaction = transaction
        self.renewalInfo = subscription.observedRenewalInfo
    }
}
