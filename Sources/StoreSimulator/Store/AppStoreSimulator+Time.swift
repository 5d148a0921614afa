import MatrixJSON
import MatrixModel

extension AppStoreSimulator {
    /// The most subscription events one move of the clock performs: a century of weekly renewals for a few
    /// subscriptions. More means the matrix asks for something it cannot mean (`advanceTime by P1000000Y`).
    public static let maximumEventsPerAdvance = 20_000

    /// Moves the virtual clock to `target` (ms since 1970), performing every renewal, billing failure, grace
    /// period end and expiration due on the way, in time order. The clock never moves back.
    /// - Throws: ``StoreError`` when more than ``maximumEventsPerAdvance`` events fall due on the way, or a
    ///   renewal cannot be made (its product has no period); the clock then stays where the last event left it.
    public func advance(to target: Int64) throws(StoreError) {
        guard target <= Self.latestTime else {
            throw StoreError("the store clock cannot pass 9999-12-31T23:59:59.999Z: signed dates are ISO 8601 with four-digit "
                             + "years, and no certificate is valid later; advance by less")
        }
        var events = 0
        while let (time, key) = nextEvent(), time <= target {
            events += 1
            if events > Self.maximumEventsPerAdvance {
                throw StoreError("moving the clock to \(Timestamp.iso8601(milliseconds: target)) would perform more than "
                                 + "\(Self.maximumEventsPerAdvance) renewals and expirations; advance by less, or turn auto-renew off first")
            }
            now = max(now, time)
            try process(key)
        }
        now = max(now, target)
    }

    /// The earliest pending subscription event and its subscription. Subscriptions held through Family
    /// Sharing follow their organizer's and have no events of their own.
    func nextEvent() -> (Int64, SubscriptionKey)? {
        var best: (Int64, SubscriptionKey)?
        for (key, sub) in subscriptions where transaction(sub.latestTransactionId)?.inAppOwnershipType == "PURCHASED" {
            let time: Int64?
            switch sub.state {
            case .subscribed: time = sub.expiresDate
            case .inGracePeriod: time = sub.gracePeriodExpiresDate
            case .inBillingRetryPeriod: time = sub.billingRetryEndsDate
            case .expired, .revoked: time = nil
            }
            guard let time else { continue }
            if let (bestTime, bestKey) = best, (bestTime, bestKey) <= (time, key) { continue }
            best = (time, key)
        }
        return best
    }

    /// Performs the event due now for one subscription.
    /// - Throws: ``StoreError`` when a renewal that is due cannot be made.
    func process(_ key: SubscriptionKey) throws(StoreError) {
        guard let sub = subscriptions[key] else { return }
        switch sub.state {
        case .subscribed:
            if sub.priceIncreaseStatus == 0 && sub.autoRenewProductId == sub.productId {
                // A price increase the customer declined or never answered ends the subscription at the period's
                // end: EXPIRED / PRICE_INCREASE, expirationIntent 3.
                // Apple: https://developer.apple.com/documentation/appstoreserverapi/expirationintent,
                // https://developer.apple.com/documentation/appstoreservernotifications/subtype (PRICE_INCREASE)
                expire(key, intent: 3, subtype: "PRICE_INCREASE")
            } else if !sub.autoRenewStatus {
                expire(key, intent: 1, subtype: "VOLUNTARY")
            } else if productsNotForSale.contains(sub.autoRenewProductId) {
                // Apple: https://developer.apple.com/documentation/appstoreservernotifications/subtype (PRODUCT_NOT_FOR_SALE)
                expire(key, intent: 4, subtype: "PRODUCT_NOT_FOR_SALE")
            } else if let limit = configuration.schedule.maximumRenewals, sub.renewalCount >= limit {
                subscriptions[key]?.environmentLimit = "\(configuration.schedule) renews a subscription at most \(limit) times; auto-renew stopped"
                subscriptions[key]?.autoRenewStatus = false
                expire(key, intent: 1, subtype: "VOLUNTARY")
            } else if sub.pendingBillingIssue {
                failRenewal(key)
            } else {
                _ = try renew(key, periodStart: sub.expiresDate, purchaseDate: sub.expiresDate)
            }
        case .inGracePeriod:
            // Grace period over without recovery: access ends, billing retry continues.
            // Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype/grace_period_expired
            subscriptions[key]?.state = .inBillingRetryPeriod
            subscriptions[key]?.gracePeriodExpiresDate = nil
            notify("GRACE_PERIOD_EXPIRED", account: key.account, transactionId: sub.latestTransactionId, groupID: key.groupID)
            mirrorToFamily(key, notification: ("GRACE_PERIOD_EXPIRED", nil))
        case .inBillingRetryPeriod:
            // Billing retry gave up after its period: expired with expirationIntent 2 (billing error).
            expire(key, intent: 2, subtype: "BILLING_RETRY")
        case .expired, .revoked:
            break
        }
    }

    /// A renewal fails with a billing issue: billing retry starts; with a grace period the customer keeps access.
    /// Renewal info then has `expirationIntent` 2 (billing error) with `isInBillingRetryPeriod` true, as the decision
    /// table of `isInBillingRetry` has it for billing retry and the grace period.
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype/did_fail_to_renew,
    /// https://developer.apple.com/documentation/storekit/product/subscriptioninfo/renewalinfo/isinbillingretry
    func failRenewal(_ key: SubscriptionKey) {
        guard var sub = subscriptions[key], let product = catalog.product(sub.autoRenewProductId),
              let period = product.recurringSubscriptionPeriod else { return }
        let graceDays = sub.pendingBillingIssueGrace ? (configuration.gracePeriodDays > 0 ? configuration.gracePeriodDays : 16) : 0
        sub.pendingBillingIssue = false
        sub.expirationIntent = 2
        sub.billingRetryEndsDate = sub.expiresDate + configuration.schedule.billingRetryPeriod(for: period)
        if graceDays > 0 {
            sub.state = .inGracePeriod
            sub.gracePeriodExpiresDate = sub.expiresDate + configuration.schedule.gracePeriod(days: graceDays, for: period)
        } else {
            sub.state = .inBillingRetryPeriod
        }
        subscriptions[key] = sub
        let subtype = graceDays > 0 ? "GRACE_PERIOD" : nil
        notify("DID_FAIL_TO_RENEW", subtype, account: key.account, transactionId: sub.latestTransactionId, groupID: key.groupID)
        mirrorToFamily(key, notification: ("DID_FAIL_TO_RENEW", subtype))
    }

    /// Performs the next `count` renewals of a subscription: the clock moves to each renewal date in turn. When the
    /// subscription ends at one of them (auto-renew was off, or the environment's renewal limit was reached:
    /// Sandbox's 12, TestFlight's 6), the step stops there, and its observation shows the subscription ended.
    /// - Throws: ``StoreError`` when the subscription does not renew to begin with (missing, expired, in billing
    ///   retry).
    public func renew(account: String, productID: String?, count: Int) throws(StoreError) {
        let key = try subscriptionKey(account: account, productID: productID)
        for index in 0..<count {
            guard let sub = subscriptions[key], sub.state == .subscribed else {
                if index > 0 { return }
                throw StoreError("the subscription is \(subscriptions[key]?.state.rawValue ?? "missing") and does not renew")
            }
            try advance(to: sub.expiresDate)
        }
    }

    /// The time a ``TimePoint`` names for the account's subscription, ms since 1970.
    public func time(of point: TimePoint, account: String, productID: String?) throws(StoreError) -> Int64 {
        let key = try subscriptionKey(account: account, productID: productID)
        guard let sub = subscriptions[key] else { throw StoreError("no subscription") }
        switch point {
        case .expiration:
            guard sub.state == .subscribed else { throw StoreError("the subscription is \(sub.state.rawValue); it has no pending expiration") }
            return sub.expiresDate
        case .gracePeriodEnd:
            guard sub.state == .inGracePeriod, let end = sub.gracePeriodExpiresDate else {
                throw StoreError("the subscription is \(sub.state.rawValue), not in a billing grace period")
            }
            return end
        case .billingRetryEnd:
            guard sub.state == .inBillingRetryPeriod || sub.state == .inGracePeriod, let end = sub.billingRetryEndsDate else {
                throw StoreError("the subscription is \(sub.state.rawValue), not in billing retry")
            }
            return end
        }
    }

    // MARK: Refunds

    /// The App Store refunds the latest transaction of a product: it is revoked at once (`revocationDate`,
    /// `revocationReason`), `REFUND` is sent, and the change reaches the app through `Transaction.updates`.
    /// A refunded subscription is revoked; Family Sharing members lose what it shared.
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype/refund
    @discardableResult
    public func refund(account: String, productID: String, reason: Int = 0) throws(StoreError) -> String {
        guard let target = lastTransaction(account: account, productID: productID, where: {
            !$0.isRevoked && $0.inAppOwnershipType == "PURCHASED"
        }) else {
            throw StoreError("account \"\(account)\" has no refundable transaction for \"\(productID)\"")
        }
        let id = target.transactionId
        update(id) {
            $0.revocationDate = now
            $0.revocationReason = reason
            $0.revocationType = "REFUND_FULL"
            // Apple: https://developer.apple.com/documentation/appstoreserverapi/revocationpercentage (100000 = 100 %)
            $0.revocationPercentage = 100_000
        }
        if let group = target.subscriptionGroupIdentifier {
            let key = SubscriptionKey(account: account, groupID: group)
            if subscriptions[key]?.latestTransactionId == id {
                subscriptions[key]?.state = .revoked
                subscriptions[key]?.autoRenewStatus = false
            }
        }
        notify("REFUND", account: account, transactionId: id, groupID: target.subscriptionGroupIdentifier)
        deliver(id, to: account)
        for member in familyMembers(of: account) {
            let shared = transactions.filter {
                $0.account == member && $0.productId == productID && $0.inAppOwnershipType == "FAMILY_SHARED" && !$0.isRevoked
            }
            revokeShared(shared.map(\.transactionId), member: member)
        }
        return id
    }

    /// The App Store declines a refund request: nothing changes but `REFUND_DECLINED`.
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype/refund_declined
    public func declineRefund(account: String, productID: String) throws(StoreError) {
        guard let target = lastTransaction(account: account, productID: productID, where: { !$0.isRevoked }) else {
            throw StoreError("account \"\(account)\" has no transaction for \"\(productID)\" to request a refund for")
        }
        notify("REFUND_DECLINED", account: account, transactionId: target.transactionId, groupID: target.subscriptionGroupIdentifier)
    }

    /// The App Store reverses a refund it granted: the revocation is lifted, `REFUND_REVERSED` is sent.
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype/refund_reversed
    public func reverseRefund(account: String, productID: String) throws(StoreError) {
        guard let target = lastTransaction(account: account, productID: productID, where: { $0.revocationType == "REFUND_FULL" }) else {
            throw StoreError("account \"\(account)\" has no refunded transaction for \"\(productID)\"")
        }
        let id = target.transactionId
        update(id) {
            $0.revocationDate = nil
            $0.revocationReason = nil
            $0.revocationType = nil
            $0.revocationPercentage = nil
        }
        if let group = target.subscriptionGroupIdentifier {
            let key = SubscriptionKey(account: account, groupID: group)
            if subscriptions[key]?.latestTransactionId == id, let sub = subscriptions[key] {
                subscriptions[key]?.state = sub.expiresDate > now ? .subscribed : .expired
            }
        }
        notify("REFUND_REVERSED", account: account, transactionId: id, groupID: target.subscriptionGroupIdentifier)
        deliver(id, to: account)
    }

    // MARK: Refund requests and test notifications

    /// The customer asks Apple for a refund of the latest transaction of a product. For a consumable or an
    /// auto-renewable subscription the App Store asks the developer for consumption data (`CONSUMPTION_REQUEST`,
    /// `consumptionRequestReason` `OTHER`); other products send nothing. Nothing changes until the App Store
    /// answers with `refund` or `declineRefund`.
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype (CONSUMPTION_REQUEST),
    /// https://developer.apple.com/documentation/appstoreservernotifications/consumptionrequestreason
    public func requestRefund(account: String, productID: String) throws(StoreError) {
        guard let target = lastTransaction(account: account, productID: productID, where: {
            !$0.isRevoked && $0.inAppOwnershipType == "PURCHASED"
        }) else {
            throw StoreError("account \"\(account)\" has no refundable transaction for \"\(productID)\"")
        }
        guard target.productType == .consumable || target.productType == .autoRenewable else { return }
        notify("CONSUMPTION_REQUEST", account: account, transactionId: target.transactionId, groupID: target.subscriptionGroupIdentifier,
               consumptionRequestReason: "OTHER")
    }

    /// The developer asks the App Store Server API for a test notification (Request a Test Notification): `TEST`,
    /// with the app's data and no transaction.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/request-a-test-notification
    public func requestTestNotification(account: String) {
        notify("TEST", account: account, transactionId: nil)
    }
}
