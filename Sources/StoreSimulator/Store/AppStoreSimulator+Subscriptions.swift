import MatrixModel

extension AppStoreSimulator {
    /// Buys an auto-renewable subscription, or changes the one the account holds in the same group.
    ///
    /// Within a group, by level (`groupNumber`, 1 = highest): an upgrade takes effect at once and the old
    /// transaction is marked `isUpgraded`; a downgrade takes effect at the next renewal (`autoRenewProductId`);
    /// a crossgrade takes effect at once when the periods match, else at the next renewal.
    /// Apple: https://developer.apple.com/app-store/subscriptions/#upgrading-downgrading-and-crossgrading
    func subscribe(account: String, product: CatalogProduct, offer: String?, appAccountToken: String?, finished: Bool,
                   notify shouldNotify: Bool, excludingDevice: String?) throws(StoreError) -> String {
        guard let groupID = product.subscriptionGroupID, let period = product.recurringSubscriptionPeriod else {
            throw StoreError("\"\(product.productID)\" has no subscription group or period")
        }
        let key = SubscriptionKey(account: account, groupID: groupID)
        if var current = subscriptions[key], current.isActive,
           transaction(current.latestTransactionId)?.inAppOwnershipType == "PURCHASED" {
            if current.productId == product.productID {
                if current.autoRenewProductId != product.productID {
                    // Going back to the current product cancels a pending downgrade: no subtype.
                    current.autoRenewProductId = product.productID
                    subscriptions[key] = current
                    if shouldNotify { notify("DID_CHANGE_RENEWAL_PREF", account: account, transactionId: current.latestTransactionId, groupID: groupID) }
                } else if !current.autoRenewStatus {
                    current.autoRenewStatus = true
                    current.expirationIntent = nil
                    subscriptions[key] = current
                    if shouldNotify {
                        notify("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED", account: account, transactionId: current.latestTransactionId, groupID: groupID)
                    }
                }
                return current.latestTransactionId
            }
            let currentProduct = try self.product(current.productId)
            let newLevel = product.groupNumber ?? 1
            let currentLevel = currentProduct.groupNumber ?? 1
            let immediate = newLevel < currentLevel
                || (newLevel == currentLevel && currentProduct.recurringSubscriptionPeriod == product.recurringSubscriptionPeriod)
            if !immediate {
                current.autoRenewProductId = product.productID
                subscriptions[key] = current
                if shouldNotify {
                    notify("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", account: account, transactionId: current.latestTransactionId, groupID: groupID)
                }
                return current.latestTransactionId
            }
            let old = current.latestTransactionId
            update(old) { $0.isUpgraded = true }
            let id = addTransaction(account: account, product: product, originalTransactionId: current.originalTransactionId,
                                    originalPurchaseDate: transaction(old)?.originalPurchaseDate,
                                    expiresDate: configuration.schedule.periodEnd(period, from: now),
                                    appAccountToken: appAccountToken, finished: finished)
            current.productId = product.productID
            current.autoRenewProductId = product.productID
            current.autoRenewStatus = true
            current.latestTransactionId = id
            current.expiresDate = transaction(id)?.expiresDate ?? now
            current.state = .subscribed
            current.pendingBillingIssue = false
            current.expirationIntent = nil
            current.remainingOfferPeriods = 0
            subscriptions[key] = current
            if shouldNotify {
                notify("DID_CHANGE_RENEWAL_PREF", "UPGRADE", account: account, transactionId: id, groupID: groupID)
                deliver(old, to: account)
                deliver(id, to: account, excludingDevice: excludingDevice)
            }
            shareWithFamily(id, notify: shouldNotify)
            return id
        }

        let previous = subscriptions[key].flatMap { transaction($0.latestTransactionId)?.inAppOwnershipType == "PURCHASED" ? $0 : nil }
        let use = try offerUse(offer, product: product, account: account)
        var expires = configuration.schedule.periodEnd(period, from: now)
        var remaining = 0
        if let use, let details = offerDetails(offer, product: product) {
            switch details.paymentMode {
            case .payAsYouGo:
                expires = configuration.schedule.periodEnd(details.subscriptionPeriod, from: now)
                remaining = max(0, details.numberOfPeriods - 1)
            case .freeTrial, .payUpFront:
                expires = configuration.schedule.periodEnd(details.totalDuration, from: now)
            }
            if use.offerType == 1 { introductoryOfferUsed.insert("\(account)|\(groupID)") }
        }
        let id = addTransaction(account: account, product: product, originalTransactionId: previous?.originalTransactionId,
                                originalPurchaseDate: previous.flatMap { transaction($0.originalTransactionId)?.originalPurchaseDate },
                                expiresDate: expires, offer: use, appAccountToken: appAccountToken, finished: finished)
        subscriptions[key] = SubscriptionState(
            account: account, groupID: groupID, originalTransactionId: transaction(id)?.originalTransactionId ?? id,
            productId: product.productID, autoRenewProductId: product.productID, autoRenewStatus: true, latestTransactionId: id,
            expiresDate: expires, state: .subscribed, recentSubscriptionStartDate: now, remainingOfferPeriods: remaining,
            currentOfferType: use?.offerType)
        if shouldNotify {
            if let use, use.offerType != 1 {
                notify("OFFER_REDEEMED", previous == nil ? "INITIAL_BUY" : "RESUBSCRIBE", account: account, transactionId: id, groupID: groupID)
            } else {
                notify("SUBSCRIBED", previous == nil ? "INITIAL_BUY" : "RESUBSCRIBE", account: account, transactionId: id, groupID: groupID)
            }
            deliver(id, to: account, excludingDevice: excludingDevice)
        }
        shareWithFamily(id, notify: shouldNotify)
        return id
    }

    /// Whether `account` may use the introductory offer of `productID`'s group: only customers who never
    /// received an introductory offer for a product of the group, and never subscribed in it.
    /// Apple: https://developer.apple.com/documentation/storekit/implementing-introductory-offers-in-your-app,
    /// https://developer.apple.com/documentation/storekit/product/subscriptioninfo/iseligibleforintrooffer
    public func isEligibleForIntroOffer(account: String, productID: String) -> Bool {
        guard let group = catalog.product(productID)?.subscriptionGroupID else { return false }
        if introductoryOfferUsed.contains("\(account)|\(group)") { return false }
        return subscriptions[SubscriptionKey(account: account, groupID: group)] == nil
    }

    func offerDetails(_ offer: String?, product: CatalogProduct) -> SubscriptionOffer? {
        guard let offer else { return nil }
        if offer == "introductory" { return product.introductoryOffer }
        return (product.promotionalOffers + product.winBackOffers).first { $0.offerID == offer }
    }

    func offerUse(_ offer: String?, product: CatalogProduct, account: String) throws(StoreError) -> SubscriptionOfferUse? {
        guard let offer else { return nil }
        guard let details = offerDetails(offer, product: product) else {
            throw StoreError("\"\(product.productID)\" has no offer \"\(offer)\"")
        }
        let offerType: Int
        if offer == "introductory" {
            // An ineligible customer pays the regular price: the purchase proceeds without the offer.
            guard isEligibleForIntroOffer(account: account, productID: product.productID) else { return nil }
            offerType = 1
        } else {
            offerType = product.winBackOffers.contains { $0.offerID == offer } ? 4 : 2
        }
        let discountType = switch details.paymentMode {
        case .freeTrial: "FREE_TRIAL"
        case .payAsYouGo: "PAY_AS_YOU_GO"
        case .payUpFront: "PAY_UP_FRONT"
        }
        let price = details.paymentMode == .freeTrial ? 0 : CatalogProduct.milliunits(details.displayPrice ?? "0")
        return SubscriptionOfferUse(offerType: offerType, offerIdentifier: offerType == 1 ? nil : offer, discountType: discountType,
                                    period: details.subscriptionPeriod.description, priceMilliunits: price)
    }

    // MARK: Customer and App Store actions on a subscription

    /// The key of the account's subscription for `productID`, or of its only subscription when `productID` is nil.
    public func subscriptionKey(account: String, productID: String?) throws(StoreError) -> SubscriptionKey {
        if let productID {
            guard let group = catalog.product(productID)?.subscriptionGroupID else {
                throw StoreError("\"\(productID)\" is not an auto-renewable subscription")
            }
            let key = SubscriptionKey(account: account, groupID: group)
            guard subscriptions[key] != nil else { throw StoreError("account \"\(account)\" has no subscription in the group of \"\(productID)\"") }
            return key
        }
        let keys = subscriptions.keys.filter { $0.account == account }.sorted()
        guard keys.count == 1, let key = keys.first else {
            throw StoreError(keys.isEmpty ? "account \"\(account)\" has no subscription"
                                          : "account \"\(account)\" has subscriptions in several groups; name the product")
        }
        return key
    }

    /// Turns auto-renew off or on (`DID_CHANGE_RENEWAL_STATUS`).
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype/did_change_renewal_status
    public func setAutoRenew(_ on: Bool, account: String, productID: String?) throws(StoreError) {
        let key = try subscriptionKey(account: account, productID: productID)
        guard var sub = subscriptions[key], sub.isActive else { throw StoreError("the subscription is not active") }
        guard sub.autoRenewStatus != on else { return }
        sub.autoRenewStatus = on
        if on { sub.expirationIntent = nil }
        subscriptions[key] = sub
        let change = ("DID_CHANGE_RENEWAL_STATUS", Optional(on ? "AUTO_RENEW_ENABLED" : "AUTO_RENEW_DISABLED"))
        notify(change.0, change.1, account: account, transactionId: sub.latestTransactionId, groupID: key.groupID)
        mirrorToFamily(key, notification: change)
    }

    /// The next renewal fails with a billing issue; with a grace period the customer keeps access until it ends.
    /// Apple: https://developer.apple.com/documentation/storekit/reducing-involuntary-subscriber-churn
    public func failNextRenewal(account: String, productID: String?, gracePeriod: Bool?) throws(StoreError) {
        let key = try subscriptionKey(account: account, productID: productID)
        guard subscriptions[key]?.isActive == true else { throw StoreError("the subscription is not active") }
        subscriptions[key]?.pendingBillingIssue = true
        subscriptions[key]?.pendingBillingIssueGrace = gracePeriod ?? (configuration.gracePeriodDays > 0)
    }

    /// The billing issue is resolved: the subscription renews (`DID_RENEW` / `BILLING_RECOVERY`). Recovered
    /// in the grace period, the renewal date stays; recovered in billing retry, the new period starts now.
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype/did_renew
    @discardableResult
    public func recoverBilling(account: String, productID: String?) throws(StoreError) -> String {
        let key = try subscriptionKey(account: account, productID: productID)
        guard let sub = subscriptions[key] else { throw StoreError("no subscription") }
        if sub.pendingBillingIssue && sub.state == .subscribed {
            subscriptions[key]?.pendingBillingIssue = false
            return sub.latestTransactionId
        }
        guard sub.state == .inGracePeriod || sub.state == .inBillingRetryPeriod else {
            throw StoreError("the subscription has no billing issue to recover from (state \(sub.state.rawValue))")
        }
        let start = sub.state == .inGracePeriod ? sub.expiresDate : now
        return try renew(key, periodStart: start, purchaseDate: now, subtype: "BILLING_RECOVERY")
    }

    /// Ends the subscription now, as `SKTestSession.expireSubscription(productIdentifier:)` does.
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/expiresubscription(productidentifier:)
    public func expireNow(account: String, productID: String?) throws(StoreError) {
        let key = try subscriptionKey(account: account, productID: productID)
        guard let sub = subscriptions[key], sub.isActive else { throw StoreError("the subscription is not active") }
        update(sub.latestTransactionId) { $0.expiresDate = min($0.expiresDate ?? now, now) }
        subscriptions[key]?.expiresDate = now
        expire(key, intent: sub.autoRenewStatus ? 5 : 1, subtype: sub.autoRenewStatus ? nil : "VOLUNTARY")
    }

    /// Renews a subscription: a new transaction for `autoRenewProductId` whose period starts at `periodStart`.
    func renew(_ key: SubscriptionKey, periodStart: Int64, purchaseDate: Int64, subtype: String? = nil) throws(StoreError) -> String {
        guard var sub = subscriptions[key] else { throw StoreError("no subscription") }
        let product = try self.product(sub.autoRenewProductId)
        guard let period = product.recurringSubscriptionPeriod else { throw StoreError("\"\(product.productID)\" has no period") }
        var offer: SubscriptionOfferUse?
        var periodLength = period
        if sub.remainingOfferPeriods > 0, sub.autoRenewProductId == sub.productId, let intro = product.introductoryOffer {
            periodLength = intro.subscriptionPeriod
            offer = SubscriptionOfferUse(offerType: 1, offerIdentifier: nil, discountType: "PAY_AS_YOU_GO",
                                         period: intro.subscriptionPeriod.description,
                                         priceMilliunits: CatalogProduct.milliunits(intro.displayPrice ?? "0"))
            sub.remainingOfferPeriods -= 1
        }
        let expires = configuration.schedule.periodEnd(periodLength, from: periodStart)
        let original = transaction(sub.originalTransactionId)
        let id = addTransaction(account: key.account, product: product, originalTransactionId: sub.originalTransactionId,
                                originalPurchaseDate: original?.originalPurchaseDate, purchaseDate: purchaseDate,
                                expiresDate: expires, reason: "RENEWAL", offer: offer)
        sub.productId = product.productID
        sub.latestTransactionId = id
        sub.expiresDate = expires
        sub.state = .subscribed
        sub.pendingBillingIssue = false
        sub.gracePeriodExpiresDate = nil
        sub.billingRetryEndsDate = nil
        sub.expirationIntent = nil
        sub.renewalCount += 1
        sub.currentOfferType = offer?.offerType
        subscriptions[key] = sub
        notify("DID_RENEW", subtype, account: key.account, transactionId: id, groupID: key.groupID)
        deliver(id, to: key.account)
        shareWithFamily(id, notify: true)
        return id
    }

    /// Ends a subscription: `EXPIRED` with the given subtype, `expirationIntent` recorded.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/expirationintent
    func expire(_ key: SubscriptionKey, intent: Int, subtype: String?) {
        guard var sub = subscriptions[key] else { return }
        sub.state = .expired
        sub.autoRenewStatus = intent == 1 || intent == 3 ? false : sub.autoRenewStatus
        sub.expirationIntent = intent
        sub.gracePeriodExpiresDate = nil
        subscriptions[key] = sub
        notify("EXPIRED", subtype, account: key.account, transactionId: sub.latestTransactionId, groupID: key.groupID)
        mirrorToFamily(key, notification: ("EXPIRED", subtype))
    }
}
