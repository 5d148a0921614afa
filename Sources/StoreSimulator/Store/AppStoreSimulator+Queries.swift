import MatrixModel

extension AppStoreSimulator {
    /// `Transaction.currentEntitlements` for an account now: the latest transaction of each non-consumable and
    /// non-renewing subscription, and of each subscription group whose subscription is subscribed or in a
    /// billing grace period; never consumables, revoked or upgraded transactions.
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/currententitlements
    public func currentEntitlements(account: String) -> [StoreTransaction] {
        var result: [StoreTransaction] = []
        for product in productKinds {
            switch product.type {
            case .consumable:
                continue
            case .nonConsumable, .nonRenewable:
                if let latest = lastTransaction(account: account, productID: product.productID, where: { !$0.isRevoked }) {
                    result.append(latest)
                }
            case .autoRenewable:
                // The account's own subscription first, then one shared with it in the same group.
                guard let group = product.groupID else { continue }
                let key = SubscriptionKey(account: account, groupID: group)
                let entitling = [subscriptions[key], familySharedSubscriptions[key]].compactMap { $0 }.lazy.compactMap { sub -> StoreTransaction? in
                    guard sub.productId == product.productID, sub.state.grantsAccess, let latest = self.transaction(sub.latestTransactionId),
                          !latest.isRevoked, !latest.isUpgraded else { return nil }
                    return latest
                }.first
                if let entitling { result.append(entitling) }
            }
        }
        return result
    }

    /// `Transaction.all` for an account: every transaction except finished consumables, which stay only when
    /// refunded or revoked, or when the app sets `SKIncludeConsumableInAppPurchaseHistory`.
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/all
    public func allTransactions(account: String) -> [StoreTransaction] {
        transactions(account: account).filter { transaction in
            guard transaction.productType == .consumable else { return true }
            return !transaction.finished || transaction.isRevoked || configuration.includeConsumableInAppPurchaseHistory
        }
    }

    /// `Transaction.latest(for:)`: the account's most recent transaction for a product, if any.
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/latest(for:)
    public func latestTransaction(account: String, productID: String) -> StoreTransaction? {
        lastTransaction(account: account, productID: productID) { transaction in
            transaction.productType != .consumable || !transaction.finished || transaction.isRevoked
                || configuration.includeConsumableInAppPurchaseHistory
        }
    }

    /// `Transaction.unfinished`: the account's transactions the app has not finished.
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/unfinished
    public func unfinishedTransactions(account: String) -> [StoreTransaction] {
        (unfinishedIndices[account] ?? []).map { transactions[$0] }
    }

    /// Subscription state per subscription group name, for groups the account has subscribed to.
    public func subscriptionStatus(account: String) -> [String: String] {
        var result: [String: String] = [:]
        for (key, sub) in subscriptions where key.account == account {
            // With a shared subscription beside the account's own, the one that gives access is the group's state.
            let shared = familySharedSubscriptions[key]
            result[groupName(key.groupID)] = (!sub.state.grantsAccess && shared?.state.grantsAccess == true ? shared ?? sub : sub).state.rawValue
        }
        return result
    }

    /// Renewal info per subscription group name.
    public func renewalInfo(account: String) -> [String: ObservedRenewalInfo] {
        var result: [String: ObservedRenewalInfo] = [:]
        for (key, sub) in subscriptions where key.account == account {
            result[groupName(key.groupID)] = sub.observedRenewalInfo
        }
        return result
    }

    /// Introductory-offer eligibility per subscription group name.
    public func introOfferEligibility(account: String) -> [String: Bool] {
        var result: [String: Bool] = [:]
        for group in catalog.subscriptionGroups {
            guard let first = group.productIDs.first else { continue }
            result[group.name] = isEligibleForIntroOffer(account: account, productID: first)
        }
        return result
    }

    /// The introductory offer of every auto-renewable product, as StoreKit describes it
    /// (`Product.SubscriptionInfo.introductoryOffer`): `none`, or its payment mode.
    /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/introductoryoffer
    public func introductoryOffers() -> [String: String] {
        var result: [String: String] = [:]
        for product in catalog.products where product.type == .autoRenewable {
            result[product.productID] = switch product.introductoryOffer?.paymentMode {
            case nil: "none"
            case .freeTrial?: "freeTrial"
            case .payAsYouGo?: "payAsYouGo"
            case .payUpFront?: "payUpFront"
            }
        }
        return result
    }

    /// Renewal transactions the account holds.
    public func renewalCount(account: String) -> Int {
        renewalCounts[account] ?? 0
    }
}

extension AppStoreSimulator {
    /// `Product.SubscriptionInfo.status` of every subscription group the account has subscribed in, in group
    /// order: state, latest transaction and renewal info.
    /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/status
    /// A family member who holds their own subscription and one shared with them in the same group has both, their
    /// own first. Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/status-swift.property
    /// ("The array can have more than one subscription status if your subscription supports Family Sharing")
    public func subscriptionStatuses(account: String) -> [StoreSubscriptionStatus] {
        subscriptions.filter { $0.key.account == account }.sorted { $0.key < $1.key }.flatMap { key, sub in
            [sub, familySharedSubscriptions[key]].compactMap { $0 }.compactMap { held -> StoreSubscriptionStatus? in
                guard let transaction = transaction(held.latestTransactionId) else { return nil }
                return StoreSubscriptionStatus(groupID: key.groupID, transaction: transaction, renewalInfo: renewalInfoSnapshot(of: held))
            }
        }
    }
}

/// One subscription group's status: its latest transaction and its renewal info (state, next renewal's price
/// and offer).
/// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/status
public struct StoreSubscriptionStatus: Sendable, Hashable {
    /// The subscription group's identifier.
    public var groupID: String
    /// The subscription's latest transaction.
    public var transaction: StoreTransaction
    /// The subscription's renewal info.
    public var renewalInfo: RenewalInfoSnapshot

    /// The subscription: its state and renewal info fields.
    public var subscription: SubscriptionState { renewalInfo.subscription }
    /// `Product.SubscriptionInfo.RenewalState`.
    public var state: RenewalState { subscription.state }
}
