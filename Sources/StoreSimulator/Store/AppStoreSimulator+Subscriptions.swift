import MatrixModel

extension AppStoreSimulator {
    /// Buys an auto-renewable subscription, or changes the one the account holds in the same group.
    ///
    /// A new subscription gets the product's introductory offer by itself when the customer is eligible (StoreKit
    /// has no purchase option that asks for one), or the promotional, win-back or code offer `offer` names.
    /// Within a group, by level (`groupNumber`, 1 = highest): an upgrade takes effect at once and the old
    /// transaction is marked `isUpgraded`; a downgrade takes effect at the next renewal (`autoRenewProductId`);
    /// a crossgrade takes effect at once when the periods match (`UPGRADE`), else at the next renewal
    /// (`DOWNGRADE`). An offer redeemed with an upgrade applies at once (`OFFER_REDEEMED` / `UPGRADE`), with a
    /// downgrade from the next renewal (`OFFER_REDEEMED` / `DOWNGRADE`), for the active product from the next
    /// renewal (`OFFER_REDEEMED`, no subtype).
    /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptionoffer,
    /// https://developer.apple.com/app-store/subscriptions/#upgrading-downgrading-and-crossgrading,
    /// https://developer.apple.com/documentation/appstoreservernotifications/subtype (UPGRADE: "upgraded their
    /// subscription or cross-graded to a subscription with the same duration"; DOWNGRADE: "downgraded their
    /// subscription or cross-graded to a subscription with a different duration"),
    /// https://developer.apple.com/documentation/appstoreservernotifications/notificationtype (OFFER_REDEEMED)
    func subscribe(account: String, product: CatalogProduct, offer: String?, appAccountToken: String?, finished: Bool,
                   notify shouldNotify: Bool, excludingDevice: String?) throws(StoreError) -> String {
        guard let groupID = product.subscriptionGroupID, let period = product.recurringSubscriptionPeriod else {
            throw StoreError("\"\(product.productID)\" has no subscription group or period")
        }
        let key = SubscriptionKey(account: account, groupID: groupID)
        if let current = subscriptions[key], current.isActive,
           transaction(current.latestTransactionId)?.inAppOwnershipType == "PURCHASED" {
            return try change(current, key: key, to: product, period: period, offer: offer, appAccountToken: appAccountToken,
                              finished: finished, notify: shouldNotify, excludingDevice: excludingDevice)
        }

        let previous = subscriptions[key].flatMap { transaction($0.latestTransactionId)?.inAppOwnershipType == "PURCHASED" ? $0 : nil }
        let use = try offerUse(offer, product: product, account: account)
        if use?.offerType == 1 { introductoryOfferUsed.insert("\(account)|\(groupID)") }
        let expires = configuration.schedule.periodEnd(use?.duration ?? period, from: now)
        let id = addTransaction(account: account, product: product, originalTransactionId: previous?.originalTransactionId,
                                originalPurchaseDate: previous.flatMap { transaction($0.originalTransactionId)?.originalPurchaseDate },
                                expiresDate: expires, offer: use, appAccountToken: appAccountToken, finished: finished)
        // A lapse of paid service up to the limit keeps the run's start. Apple:
        // https://developer.apple.com/documentation/appstoreserverapi/recentsubscriptionstartdate
        let lapseLimit = configuration.schedule.recentStartLapseLimit(for: period)
        let recentStart = previous.map { now - $0.expiresDate <= lapseLimit ? $0.recentSubscriptionStartDate : now } ?? now
        // A family member's own subscription does not end the one shared with them: both are kept.
        if let shared = subscriptions[key], transaction(shared.latestTransactionId)?.inAppOwnershipType == "FAMILY_SHARED" {
            familySharedSubscriptions[key] = shared
        }
        subscriptions[key] = SubscriptionState(
            account: account, groupID: groupID, originalTransactionId: transaction(id)?.originalTransactionId ?? id,
            productId: product.productID, autoRenewProductId: product.productID, autoRenewStatus: true, latestTransactionId: id,
            expiresDate: expires, state: .subscribed, price: currentPrice(of: product), recentSubscriptionStartDate: recentStart,
            upcomingOffer: use.flatMap { $0.transactions > 1 ? UpcomingOffer(use: $0, periods: $0.transactions - 1, productId: product.productID) : nil },
            currentOfferType: use?.offerType, appAccountToken: appAccountToken)
        if shouldNotify {
            let subtype = previous == nil ? "INITIAL_BUY" : "RESUBSCRIBE"
            // An introductory offer is part of subscribing; the other offers are redeemed.
            notify(use.map { $0.offerType != 1 } == true ? "OFFER_REDEEMED" : "SUBSCRIBED", subtype, account: account,
                   transactionId: id, groupID: groupID)
            deliver(id, to: account, excludingDevice: excludingDevice)
        }
        shareWithFamily(id, notify: shouldNotify)
        return id
    }

    /// A purchase in the group of an active subscription: an offer for the active product, going back to it, or
    /// an upgrade, downgrade or crossgrade.
    private func change(_ active: SubscriptionState, key: SubscriptionKey, to product: CatalogProduct, period: ISO8601Duration,
                        offer: String?, appAccountToken: String?, finished: Bool, notify shouldNotify: Bool,
                        excludingDevice: String?) throws(StoreError) -> String {
        var current = active
        let groupID = key.groupID
        let account = key.account
        // An active subscriber is never eligible for the introductory offer; the offer named applies.
        let use = try offerUse(offer, product: product, account: account)
        if current.productId == product.productID {
            if let use {
                // An offer redeemed for the active subscription applies from its next renewal.
                current.upcomingOffer = UpcomingOffer(use: use, periods: use.transactions, productId: product.productID)
                current.autoRenewProductId = product.productID
                current.autoRenewStatus = true
                current.expirationIntent = nil
                subscriptions[key] = current
                if shouldNotify { notify("OFFER_REDEEMED", account: account, transactionId: current.latestTransactionId, groupID: groupID) }
            } else if current.autoRenewProductId != product.productID {
                // Going back to the current product cancels a pending downgrade: no subtype.
                current.autoRenewProductId = product.productID
                if current.upcomingOffer?.productId != product.productID { current.upcomingOffer = nil }
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
            current.upcomingOffer = use.map { UpcomingOffer(use: $0, periods: $0.transactions, productId: product.productID) }
            subscriptions[key] = current
            if shouldNotify {
                notify(use == nil ? "DID_CHANGE_RENEWAL_PREF" : "OFFER_REDEEMED", "DOWNGRADE", account: account,
                       transactionId: current.latestTransactionId, groupID: groupID)
            }
            return current.latestTransactionId
        }
        let old = current.latestTransactionId
        update(old) { $0.isUpgraded = true }
        let token = appAccountToken ?? current.appAccountToken
        let id = addTransaction(account: account, product: product, originalTransactionId: current.originalTransactionId,
                                originalPurchaseDate: transaction(old)?.originalPurchaseDate,
                                expiresDate: configuration.schedule.periodEnd(use?.duration ?? period, from: now), offer: use,
                                appAccountToken: token, finished: finished)
        current.productId = product.productID
        current.autoRenewProductId = product.productID
        current.autoRenewStatus = true
        current.latestTransactionId = id
        current.expiresDate = transaction(id)?.expiresDate ?? now
        current.state = .subscribed
        current.pendingBillingIssue = false
        current.expirationIntent = nil
        current.price = currentPrice(of: product)
        current.priceIncreaseStatus = nil
        current.increasedPrice = nil
        current.currentOfferType = use?.offerType
        current.upcomingOffer = use.flatMap { $0.transactions > 1 ? UpcomingOffer(use: $0, periods: $0.transactions - 1, productId: product.productID) : nil }
        current.appAccountToken = token
        subscriptions[key] = current
        if shouldNotify {
            notify(use == nil ? "DID_CHANGE_RENEWAL_PREF" : "OFFER_REDEEMED", "UPGRADE", account: account, transactionId: id, groupID: groupID)
            deliver(old, to: account)
            deliver(id, to: account, excludingDevice: excludingDevice)
        }
        shareWithFamily(id, notify: shouldNotify)
        return id
    }

    /// Renews a subscription: a new transaction for `autoRenewProductId` whose period starts at `periodStart`, at
    /// the price and with the offer the renewal info announced (``renewalTerms(of:)``), carrying the purchase's
    /// `appAccountToken`.
    func renew(_ key: SubscriptionKey, periodStart: Int64, purchaseDate: Int64, subtype: String? = nil) throws(StoreError) -> String {
        guard var sub = subscriptions[key] else { throw StoreError("no subscription") }
        let product = try self.product(sub.autoRenewProductId)
        guard let period = product.recurringSubscriptionPeriod else { throw StoreError("\"\(product.productID)\" has no period") }
        let terms = renewalTerms(of: sub)
        if var upcoming = sub.upcomingOffer, upcoming.productId == product.productID {
            upcoming.periods -= 1
            sub.upcomingOffer = upcoming.periods > 0 ? upcoming : nil
        } else {
            sub.upcomingOffer = nil
        }
        if product.productID == sub.productId, sub.priceIncreaseStatus == nil || sub.priceIncreaseStatus == 1 {
            // A consented increase takes effect now and is no longer pending.
            if let increased = sub.increasedPrice { sub.price = increased }
        } else if product.productID != sub.productId {
            sub.price = currentPrice(of: product)
        }
        sub.priceIncreaseStatus = nil
        sub.increasedPrice = nil
        let expires = configuration.schedule.periodEnd(terms.offer?.duration ?? period, from: periodStart)
        if periodStart - sub.expiresDate > configuration.schedule.recentStartLapseLimit(for: period) {
            sub.recentSubscriptionStartDate = periodStart
        }
        let original = transaction(sub.originalTransactionId)
        let id = addTransaction(account: key.account, product: product, originalTransactionId: sub.originalTransactionId,
                                originalPurchaseDate: original?.originalPurchaseDate, purchaseDate: purchaseDate,
                                expiresDate: expires, reason: "RENEWAL", offer: terms.offer, price: sub.price,
                                appAccountToken: sub.appAccountToken)
        sub.productId = product.productID
        sub.latestTransactionId = id
        sub.expiresDate = expires
        sub.state = .subscribed
        sub.pendingBillingIssue = false
        sub.gracePeriodExpiresDate = nil
        sub.billingRetryEndsDate = nil
        sub.expirationIntent = nil
        sub.renewalCount += 1
        sub.currentOfferType = terms.offer?.offerType
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
        sub.upcomingOffer = nil
        subscriptions[key] = sub
        notify("EXPIRED", subtype, account: key.account, transactionId: sub.latestTransactionId, groupID: key.groupID)
        mirrorToFamily(key, notification: ("EXPIRED", subtype))
    }
}
