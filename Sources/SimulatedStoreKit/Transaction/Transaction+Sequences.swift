import Foundation
import StoreSimulator

extension Transaction {
    /// A sequence of transactions: the customer's history (``all``, ``currentEntitlements``, ``unfinished``), a
    /// snapshot taken when iteration starts, or ``updates``, which goes on until the app quits.
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/transactions
    public struct Transactions: AsyncSequence, Sendable {
        public typealias Element = VerificationResult<Transaction>
        public typealias Failure = Never

        enum Source: Sendable {
            case all
            case currentEntitlements(productID: String?)
            case unfinished
            case updates
        }

        let source: Source

        public func makeAsyncIterator() -> AsyncIterator {
            guard let session = try? StoreKitSession.resolve(for: "Transaction.\(source.name)") else {
                return AsyncIterator(items: [])
            }
            if case .updates = source {
                let listener = UpdatesListener(session: session)
                session.register(listener)
                return AsyncIterator(listener: listener)
            }
            let (transactions, context) = session.store.withStore { store in
                let account = session.account
                let picked: [StoreTransaction] = switch source {
                case .all: store.allTransactions(account: account)
                case .currentEntitlements(let productID):
                    store.currentEntitlements(account: account).filter { productID == nil || $0.productId == productID }
                case .unfinished: store.unfinishedTransactions(account: account)
                case .updates: []
                }
                return (picked, SnapshotContext(store))
            }
            // A verification failure set up for the next call is met by the next call that hands out a transaction.
            let failure = transactions.isEmpty ? nil : session.takeVerificationFailure()
            return AsyncIterator(items: transactions.map {
                VerificationResult(Transaction($0, context, signer: session.store.signer), failure: failure)
            })
        }

        /// The next transaction.
        public struct AsyncIterator: AsyncIteratorProtocol {
            private var items: [Element] = []
            private var index = 0
            private let listener: UpdatesListener?
            /// Ends the listener when the last copy of the iterator goes away (the loop was left with `break`, or
            /// its task ended), as Apple's sequence stops delivering to a dropped iterator.
            private let lifetime: ListenerLifetime?

            init(items: [Element]) {
                self.items = items
                listener = nil
                lifetime = nil
            }

            init(listener: UpdatesListener) {
                self.listener = listener
                lifetime = ListenerLifetime(listener)
            }

            public mutating func next() async -> Element? {
                if let listener { return await listener.next() }
                return nextIfReady()
            }

            /// The next transaction, on the caller's actor: a `for await` loop calls this one (SE-0421), so that
            /// a loop in an actor (an app's store) does not leave the actor and come back for each transaction.
            public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
                if let listener { return await listener.next(isolation: actor) }
                return nextIfReady()
            }

            /// The next transaction if one is ready now, without waiting: for ``Transaction/updates``, one that
            /// was delivered and not yet taken. An app that handles what waits at launch before its first
            /// entitlement check takes those first (the reference app does).
            package mutating func nextIfReady() -> Element? {
                if let listener { return listener.nextIfReady() }
                guard index < items.count else { return nil }
                defer { index += 1 }
                return items[index]
            }
        }
    }

    /// Transactions that arrive outside the app's own `purchase(options:)` call on this device: at each launch
    /// the unfinished ones first, then renewals, Ask to Buy approvals, purchases on other devices, refunds and
    /// revocations, each once. The sequence ends when the app quits.
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/updates
    public static var updates: Transactions { Transactions(source: .updates) }

    /// The transactions that entitle the customer now: the latest of each non-consumable and non-renewing
    /// subscription, and of each auto-renewable subscription that is subscribed or in a billing grace period;
    /// never consumables, revoked or upgraded transactions.
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/currententitlements
    public static var currentEntitlements: Transactions { Transactions(source: .currentEntitlements(productID: nil)) }

    /// The transactions that entitle the customer to `productID` now.
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/currententitlements(for:)
    public static func currentEntitlements(for productID: String) -> Transactions {
        Transactions(source: .currentEntitlements(productID: productID))
    }

    /// The latest transaction that entitles the customer to `productID`, if any. Deprecated by Apple in favour of
    /// ``currentEntitlements(for:)``.
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/currententitlement(for:)
    public static func currentEntitlement(for productID: String) async -> VerificationResult<Transaction>? {
        var last: VerificationResult<Transaction>?
        for await transaction in currentEntitlements(for: productID) { last = transaction }
        return last
    }

    /// Every transaction of the customer, except finished consumables (which stay only when refunded or revoked,
    /// or when the app sets `SKIncludeConsumableInAppPurchaseHistory`).
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/all
    public static var all: Transactions { Transactions(source: .all) }

    /// The transactions the app has not finished.
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/unfinished
    public static var unfinished: Transactions { Transactions(source: .unfinished) }

    /// The customer's latest transaction for `productID`, if any; finished consumables are left out as in ``all``.
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/latest(for:)
    public static func latest(for productID: String) async -> VerificationResult<Transaction>? {
        guard let session = try? StoreKitSession.resolve(for: "Transaction.latest(for:)") else { return nil }
        let (transaction, context) = session.store.withStore { store in
            (store.latestTransaction(account: session.account, productID: productID), SnapshotContext(store))
        }
        return transaction.map {
            VerificationResult(Transaction($0, context, signer: session.store.signer), failure: session.takeVerificationFailure())
        }
    }
}

extension Transaction.Transactions.Source {
    var name: String {
        switch self {
        case .all: "all"
        case .currentEntitlements: "currentEntitlements"
        case .unfinished: "unfinished"
        case .updates: "updates"
        }
    }
}

extension VerificationResult {
    /// Verified, or unverified with the failure the runner set up.
    init(_ value: SignedType, failure: VerificationError?) {
        if let failure { self = .unverified(value, failure) } else { self = .verified(value) }
    }
}

/// Ends an updates listener when its iterator is dropped.
final class ListenerLifetime: Sendable {
    let listener: UpdatesListener

    init(_ listener: UpdatesListener) {
        self.listener = listener
    }

    deinit {
        listener.end()
    }
}
