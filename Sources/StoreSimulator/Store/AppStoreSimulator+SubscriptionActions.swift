import MatrixModel

extension AppStoreSimulator {
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
        if on, sub.state == .subscribed { sub.expirationIntent = nil }
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

    // MARK: Price increases

    /// The developer raises the price of the subscription's product to `price` (as the catalog writes prices,
    /// `"5.99"`), an increase that needs the customer's consent: the product costs that for new customers and
    /// StoreKit shows it; the subscriber's renewal info announces it (`renewalPrice`, `priceIncreaseStatus` 0)
    /// and `PRICE_INCREASE` / `PENDING` is sent. Without consent by the end of the period the subscription
    /// expires (``process(_:)``).
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype/price_increase,
    /// https://developer.apple.com/documentation/appstoreserverapi/priceincreasestatus
    /// - Throws: ``StoreError`` when the subscription is not active or `price` is not above what the subscriber pays.
    public func requestPriceIncrease(account: String, productID: String?, price: String) throws(StoreError) {
        let key = try subscriptionKey(account: account, productID: productID)
        guard let sub = subscriptions[key], sub.isActive else { throw StoreError("the subscription is not active") }
        let raised = CatalogProduct.milliunits(price)
        guard raised > sub.price else {
            throw StoreError("a price increase needs a price above the \(Self.decimal(sub.price)) the subscriber pays; got \(price)")
        }
        changedPrices[sub.productId] = price
        subscriptions[key]?.increasedPrice = raised
        subscriptions[key]?.priceIncreaseStatus = 0
        notify("PRICE_INCREASE", "PENDING", account: account, transactionId: sub.latestTransactionId, groupID: key.groupID)
    }

    /// The customer consents (`PRICE_INCREASE` / `ACCEPTED`; `priceIncreaseStatus` 1: the next renewal charges the
    /// new price) or declines (auto-renew turns off; the subscription expires at the period's end with
    /// `expirationIntent` 3).
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/subtype (ACCEPTED)
    public func respondToPriceIncrease(consent: Bool, account: String, productID: String?) throws(StoreError) {
        let key = try subscriptionKey(account: account, productID: productID)
        guard let sub = subscriptions[key], sub.priceIncreaseStatus == 0 else {
            throw StoreError("there is no price increase waiting for consent")
        }
        if consent {
            subscriptions[key]?.priceIncreaseStatus = 1
            notify("PRICE_INCREASE", "ACCEPTED", account: account, transactionId: sub.latestTransactionId, groupID: key.groupID)
        } else {
            try setAutoRenew(false, account: account, productID: productID)
        }
    }

    /// Milliunits as a decimal price, `4990` → `"4.99"`.
    static func decimal(_ milliunits: Int64) -> String {
        let cents = (milliunits + 5) / 10
        let fraction = String(cents % 100)
        return "\(cents / 100).\(fraction.count == 1 ? "0" + fraction : fraction)"
    }

    // MARK: Renewal-date extensions

    /// The most days one renewal-date extension may add, and how many extensions a subscription may get in 365
    /// days. Apple: https://developer.apple.com/documentation/appstoreserverapi/extendbydays,
    /// https://developer.apple.com/documentation/appstoreserverapi/extend-a-subscription-renewal-date
    public static let maximumExtensionDays = 90
    public static let extensionsPerYear = 2

    /// The developer extends the renewal date of the account's active subscription by `days` (the App Store
    /// Server API's Extend a Subscription Renewal Date): the latest transaction's `expiresDate` and the renewal
    /// date move, `RENEWAL_EXTENDED` is sent, and the changed transaction reaches the app through
    /// `Transaction.updates`. Days are the modelled clock's (a Sandbox day lasts what Sandbox makes of it).
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype (RENEWAL_EXTENDED)
    /// - Throws: ``StoreError`` when the subscription is not active and paid for, `days` is not 1 to 90, or it was
    ///   extended twice in the last 365 days.
    @discardableResult
    public func extendRenewalDate(account: String, productID: String?, days: Int) throws(StoreError) -> String {
        let key = try subscriptionKey(account: account, productID: productID)
        if let reason = extensionRefusal(key, days: days) { throw StoreError(reason) }
        return extend(key, days: days)
    }

    /// The developer extends the renewal date of every active subscriber of `productID` by `days` (Extend
    /// Subscription Renewal Dates for All Active Subscribers): `RENEWAL_EXTENDED` for each extended subscription,
    /// `RENEWAL_EXTENSION` / `FAILURE` for each that cannot be extended (twice extended this year), then
    /// `RENEWAL_EXTENSION` / `SUMMARY` with the counts, sent to `account` (the developer's request has no account
    /// of its own). Returns the transactions extended.
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype (RENEWAL_EXTENSION),
    /// https://developer.apple.com/documentation/appstoreservernotifications/summary
    public func extendRenewalDatesForAllSubscribers(productID: String, days: Int, account: String) throws(StoreError) -> [String] {
        guard (1...Self.maximumExtensionDays).contains(days) else {
            throw StoreError("a renewal date can be extended by 1 to \(Self.maximumExtensionDays) days; got \(days)")
        }
        _ = try product(productID)
        let requestIdentifier = Self.identifier(0, "0000-4000-9000", nextRequest)
        nextRequest += 1
        var extended: [String] = []
        var failed = 0
        for (key, sub) in subscriptions.sorted(by: { $0.key < $1.key })
        where sub.productId == productID && sub.state == .subscribed
            && transaction(sub.latestTransactionId)?.inAppOwnershipType == "PURCHASED" {
            if extensionRefusal(key, days: days) == nil {
                extended.append(extend(key, days: days))
            } else {
                failed += 1
                notify("RENEWAL_EXTENSION", "FAILURE", account: key.account, transactionId: sub.latestTransactionId, groupID: key.groupID)
            }
        }
        notify("RENEWAL_EXTENSION", "SUMMARY", account: account, transactionId: nil,
               summary: RenewalExtensionSummary(requestIdentifier: requestIdentifier, productId: productID,
                                                storefrontCountryCodes: [configuration.storefront], succeededCount: extended.count,
                                                failedCount: failed))
        return extended
    }

    /// Why a subscription's renewal date cannot be extended by `days`, or `nil`.
    func extensionRefusal(_ key: SubscriptionKey, days: Int) -> String? {
        guard (1...Self.maximumExtensionDays).contains(days) else {
            return "a renewal date can be extended by 1 to \(Self.maximumExtensionDays) days; got \(days)"
        }
        guard let sub = subscriptions[key], sub.state == .subscribed,
              transaction(sub.latestTransactionId)?.inAppOwnershipType == "PURCHASED" else {
            return "only an active subscription the account pays for can be extended (it is \(subscriptions[key]?.state.rawValue ?? "missing"))"
        }
        if sub.extensionDates.filter({ now - $0 < 365 * 86_400_000 }).count >= Self.extensionsPerYear {
            return "a subscription's renewal date can be extended at most \(Self.extensionsPerYear) times in 365 days"
        }
        return nil
    }

    private func extend(_ key: SubscriptionKey, days: Int) -> String {
        guard var sub = subscriptions[key] else { return "" }
        let extended = configuration.schedule.periodEnd(ISO8601Duration(days: days), from: sub.expiresDate)
        update(sub.latestTransactionId) { $0.expiresDate = extended }
        sub.expiresDate = extended
        sub.extensionDates.append(now)
        subscriptions[key] = sub
        notify("RENEWAL_EXTENDED", account: key.account, transactionId: sub.latestTransactionId, groupID: key.groupID)
        deliver(sub.latestTransactionId, to: key.account)
        for member in familyMembers(of: key.account) {
            let memberKey = SubscriptionKey(account: member, groupID: key.groupID)
            guard let shared = subscriptions[memberKey], transaction(shared.latestTransactionId)?.inAppOwnershipType == "FAMILY_SHARED",
                  shared.state != .revoked else { continue }
            update(shared.latestTransactionId) { $0.expiresDate = extended }
            deliver(shared.latestTransactionId, to: member)
        }
        mirrorToFamily(key, notification: ("RENEWAL_EXTENDED", nil))
        return sub.latestTransactionId
    }
}
