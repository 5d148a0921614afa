import MatrixModel

/// How the App Store answered a purchase request.
/// Apple: https://developer.apple.com/documentation/storekit/product/purchaseresult
public enum PurchaseResolution: Sendable, Hashable {
    /// The purchase completed; the transaction is returned to the app that asked.
    case success(transactionId: String)
    case userCancelled
    /// Waiting for approval (Ask to Buy); the transaction will arrive through `Transaction.updates`.
    case pending
    /// `purchase()` threw a StoreKit error; the message names it.
    case failed(String)
}

extension AppStoreSimulator {
    /// A purchase in the app on `device` (`Product.purchase(options:)`).
    ///
    /// - `userCancelled` creates nothing and sends no notification.
    /// - `pending` (or Ask to Buy on) queues the request for approval; nothing else happens until a parent acts.
    ///   Apple: https://developer.apple.com/documentation/storekit/product/purchaseresult/pending
    /// - `interrupted` fails the purchase until ``resolveIssue(account:)``, as `SKTestSession` does with
    ///   interrupted purchases enabled. Apple: https://developer.apple.com/documentation/storekittest/sktestsession/interruptedpurchasesenabled
    /// - `offer` is a promotional or win-back offer's identifier (`Product.PurchaseOption.promotionalOffer`,
    ///   `.winBackOffer`); an eligible customer gets the introductory offer without asking. A win-back offer for a
    ///   customer who is not a churned subscriber fails with `Product.PurchaseError.ineligibleForOffer`.
    ///   Apple: https://developer.apple.com/documentation/storekit/product/purchaseoption
    /// - Throws: ``StoreError`` for an offer code: StoreKit redeems those outside the purchase call
    ///   (``purchaseOutsideApp(account:productID:quantity:offer:)``).
    public func purchase(account: String, productID: String, outcome: PurchaseOutcome = .success, quantity: Int = 1,
                         offer: String? = nil, appAccountToken: String? = nil, device: String) throws(StoreError) -> PurchaseResolution {
        let product = try product(productID)
        if productsNotForSale.contains(productID) {
            // Apple: https://developer.apple.com/documentation/storekit/product/purchaseerror/productunavailable
            return .failed("Product.PurchaseError.productUnavailable: \(productID) is not for sale")
        }
        if let offer, catalogOffer(offer, of: product)?.offerType == 3 {
            throw StoreError("\"\(offer)\" is an offer code: the customer redeems it outside the purchase call (purchaseOutsideApp)")
        }
        if outcome == .success, let reason = offerIneligibility(offer, productID: productID, account: account) {
            // Apple: https://developer.apple.com/documentation/storekit/product/purchaseerror/ineligibleforoffer
            return .failed("Product.PurchaseError.ineligibleForOffer: \(reason)")
        }
        let request = PendingPurchase(account: account, productId: productID, quantity: quantity, offer: offer, appAccountToken: appAccountToken)
        switch outcome {
        case .userCancelled:
            return .userCancelled
        case .failed:
            return .failed("StoreKitError.unknown: the purchase failed")
        case .interrupted:
            interruptedPurchases.append(request)
            return .failed("the purchase was interrupted (StoreKitError.unknown); the customer must resolve an issue first")
        case .pending:
            pendingApprovals.append(request)
            return .pending
        case .success:
            if configuration.askToBuy {
                pendingApprovals.append(request)
                return .pending
            }
            let id = try completePurchase(account: account, product: product, quantity: quantity, offer: offer,
                                          appAccountToken: appAccountToken, excludingDevice: device)
            return .success(transactionId: id)
        }
    }

    /// A parent approves the oldest pending request of `account` (or the one for `productID`): the transaction
    /// is created now and delivered through `Transaction.updates`, with the notifications of a purchase.
    /// Apple: https://developer.apple.com/documentation/storekit/testing-purchases-made-outside-your-app
    @discardableResult
    public func approveAskToBuy(account: String, productID: String?) throws(StoreError) -> String {
        let request = try takePending(&pendingApprovals, account: account, productID: productID, what: "Ask to Buy request")
        return try completePurchase(account: account, product: try product(request.productId), quantity: request.quantity,
                                    offer: request.offer, appAccountToken: request.appAccountToken)
    }

    /// A parent declines a pending request: no transaction, no notification.
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/declineasktobuytransaction(identifier:)
    public func declineAskToBuy(account: String, productID: String?) throws(StoreError) {
        _ = try takePending(&pendingApprovals, account: account, productID: productID, what: "Ask to Buy request")
    }

    /// The customer resolves the issue that interrupted a purchase; the purchase completes and arrives through
    /// `Transaction.updates`.
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/resolveissuefortransaction(identifier:)
    @discardableResult
    public func resolveIssue(account: String, productID: String?) throws(StoreError) -> String {
        let request = try takePending(&interruptedPurchases, account: account, productID: productID, what: "interrupted purchase")
        return try completePurchase(account: account, product: try product(request.productId), quantity: request.quantity,
                                    offer: request.offer, appAccountToken: request.appAccountToken)
    }

    /// A purchase made outside the app (another device, an offer code, the Transaction Manager): delivered to
    /// the app only through `Transaction.updates`. `offer` may name an offer code of the catalog's `codeOffers`
    /// (`offerType` 3) or a win-back offer redeemed in the App Store.
    /// Apple: https://developer.apple.com/documentation/storekit/testing-purchases-made-outside-your-app,
    /// https://developer.apple.com/documentation/storekit/transaction/offertype-swift.struct/code
    @discardableResult
    public func purchaseOutsideApp(account: String, productID: String, quantity: Int = 1, offer: String? = nil) throws(StoreError) -> String {
        if productsNotForSale.contains(productID) { throw StoreError("\(productID) is not for sale (removeFromSale); it cannot be bought") }
        return try completePurchase(account: account, product: try product(productID), quantity: quantity, offer: offer, appAccountToken: nil)
    }

    /// The developer removes a product from sale: it can no longer be bought, and subscriptions that would
    /// renew to it expire at their next renewal date (``process(_:)``).
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/expirationintent (4: the product
    /// wasn't available for purchase at the time of renewal)
    public func removeFromSale(productID: String) throws(StoreError) {
        _ = try product(productID)
        productsNotForSale.insert(productID)
    }

    func takePending(_ list: inout [PendingPurchase], account: String, productID: String?, what: String) throws(StoreError) -> PendingPurchase {
        guard let index = list.firstIndex(where: { $0.account == account && (productID == nil || $0.productId == productID) }) else {
            throw StoreError("there is no \(what) for account \"\(account)\"\(productID.map { " and product \"\($0)\"" } ?? "")")
        }
        return list.remove(at: index)
    }

    /// Completes a purchase: creates the transaction (or changes the subscription), sends the notifications and
    /// queues the updates. Returns the transaction the purchase resolves to.
    func completePurchase(account: String, product: CatalogProduct, quantity: Int, offer: String?, appAccountToken: String?,
                          finished: Bool = false, notify shouldNotify: Bool = true, excludingDevice: String? = nil) throws(StoreError) -> String {
        switch product.type {
        case .autoRenewable:
            return try subscribe(account: account, product: product, offer: offer, appAccountToken: appAccountToken,
                                 finished: finished, notify: shouldNotify, excludingDevice: excludingDevice)
        case .nonConsumable:
            // Buying a non-consumable again restores the existing purchase; nothing new is charged.
            if let owned = lastTransaction(account: account, productID: product.productID, where: {
                !$0.isRevoked && $0.inAppOwnershipType == "PURCHASED"
            }) {
                return owned.transactionId
            }
            fallthrough
        case .consumable, .nonRenewable:
            let id = addTransaction(account: account, product: product, quantity: product.type == .consumable ? quantity : 1,
                                    appAccountToken: appAccountToken, finished: finished)
            if shouldNotify {
                // ONE_TIME_CHARGE: a consumable, non-consumable or non-renewing subscription was bought.
                // Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype
                notify("ONE_TIME_CHARGE", account: account, transactionId: id)
                deliver(id, to: account, excludingDevice: excludingDevice)
            }
            if product.type == .nonConsumable, product.familyShareable {
                shareWithFamily(id, notify: shouldNotify)
            }
            return id
        }
    }

    // MARK: Family Sharing

    /// Grants every active family member a `FAMILY_SHARED` copy of an organizer's transaction.
    /// Apple: https://developer.apple.com/documentation/storekit/supporting-family-sharing-in-your-app
    func shareWithFamily(_ organizerTransactionId: String, notify shouldNotify: Bool) {
        guard let source = transaction(organizerTransactionId), source.inAppOwnershipType == "PURCHASED",
              let product = catalog.product(source.productId), product.familyShareable else { return }
        for member in familyMembers(of: source.account) {
            // A member with an active subscription of their own in the group keeps it; the shared one is kept
            // beside it (both statuses are reported).
            let holdsOwn = product.type == .autoRenewable && product.subscriptionGroupID.flatMap {
                subscriptions[SubscriptionKey(account: member, groupID: $0)]
            }.map { $0.isActive && transaction($0.latestTransactionId)?.inAppOwnershipType == "PURCHASED" } == true
            let previous = lastTransaction(account: member, productID: source.productId) { $0.inAppOwnershipType == "FAMILY_SHARED" }
            let id = addTransaction(account: member, product: product, originalTransactionId: previous?.originalTransactionId,
                                    originalPurchaseDate: previous?.originalPurchaseDate, purchaseDate: source.purchaseDate,
                                    expiresDate: source.expiresDate, ownership: "FAMILY_SHARED", reason: source.transactionReason,
                                    finished: !shouldNotify)
            if let group = product.subscriptionGroupID, let organizerSub = subscriptions[SubscriptionKey(account: source.account, groupID: group)] {
                var mirror = organizerSub
                mirror.account = member
                mirror.latestTransactionId = id
                mirror.originalTransactionId = transaction(id)?.originalTransactionId ?? id
                let memberKey = SubscriptionKey(account: member, groupID: group)
                if holdsOwn {
                    familySharedSubscriptions[memberKey] = mirror
                } else {
                    subscriptions[memberKey] = mirror
                    familySharedSubscriptions[memberKey] = nil
                }
            }
            if shouldNotify {
                if product.type == .autoRenewable {
                    notify(source.transactionReason == "RENEWAL" ? "DID_RENEW" : "SUBSCRIBED",
                           source.transactionReason == "RENEWAL" ? nil : (previous == nil ? "INITIAL_BUY" : "RESUBSCRIBE"),
                           account: member, transactionId: id, groupID: product.subscriptionGroupID)
                } else {
                    notify("ONE_TIME_CHARGE", account: member, transactionId: id)
                }
                deliver(id, to: member)
            }
        }
    }

    /// Copies an organizer's subscription state (not its transactions) to members holding it through Family
    /// Sharing, sending them the same notification.
    func mirrorToFamily(_ key: SubscriptionKey, notification: (String, String?)?) {
        guard let organizerSub = subscriptions[key] else { return }
        /// The organizer's state with the member's own transaction IDs.
        func following(_ mirror: SubscriptionState, member: String) -> SubscriptionState {
            var copy = organizerSub
            copy.account = member
            (copy.latestTransactionId, copy.originalTransactionId) = (mirror.latestTransactionId, mirror.originalTransactionId)
            return copy
        }
        for member in familyMembers(of: key.account) {
            let memberKey = SubscriptionKey(account: member, groupID: key.groupID)
            if let mirror = subscriptions[memberKey], transaction(mirror.latestTransactionId)?.inAppOwnershipType == "FAMILY_SHARED",
               mirror.state != .revoked {
                subscriptions[memberKey] = following(mirror, member: member)
                if let (type, subtype) = notification {
                    notify(type, subtype, account: member, transactionId: mirror.latestTransactionId, groupID: key.groupID)
                }
            } else if let shared = familySharedSubscriptions[memberKey], shared.state != .revoked {
                familySharedSubscriptions[memberKey] = following(shared, member: member)
                if let (type, subtype) = notification {
                    notify(type, subtype, account: member, transactionId: shared.latestTransactionId, groupID: key.groupID)
                }
            }
        }
    }

    /// Family Sharing ends for a member (left the family, or the organizer stopped sharing): every shared
    /// transaction is revoked and the member receives `REVOKE`.
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype/revoke
    public func revokeFamilySharing(member: String, productID: String?) throws(StoreError) {
        let shared = transactions.filter {
            $0.account == member && $0.inAppOwnershipType == "FAMILY_SHARED" && !$0.isRevoked && (productID == nil || $0.productId == productID)
        }
        guard !shared.isEmpty || familyOrganizer[member] != nil else {
            throw StoreError("account \"\(member)\" has no Family Sharing access to revoke")
        }
        if productID == nil { familyOrganizer[member] = nil }
        revokeShared(shared.map(\.transactionId), member: member)
    }

    func revokeShared(_ ids: [String], member: String) {
        var notifiedProducts = Set<String>()
        for id in ids {
            update(id) {
                $0.revocationDate = now
                $0.revocationReason = 0
                $0.revocationType = "FAMILY_REVOKE"
                $0.revocationPercentage = 100_000
            }
            guard let revoked = transaction(id) else { continue }
            if let group = revoked.subscriptionGroupIdentifier {
                let key = SubscriptionKey(account: member, groupID: group)
                if subscriptions[key]?.latestTransactionId == id {
                    subscriptions[key]?.state = .revoked
                    subscriptions[key]?.autoRenewStatus = false
                }
                if familySharedSubscriptions[key]?.latestTransactionId == id {
                    familySharedSubscriptions[key]?.state = .revoked
                    familySharedSubscriptions[key]?.autoRenewStatus = false
                }
            }
            if notifiedProducts.insert(revoked.productId).inserted {
                notify("REVOKE", account: member, transactionId: id, groupID: revoked.subscriptionGroupIdentifier)
            }
            deliver(id, to: member)
        }
    }
}
