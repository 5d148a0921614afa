import MatrixModel

extension AppStoreSimulator {
    /// Whether `account` may use the introductory offer of `productID`'s group: only customers who never
    /// received an introductory offer for a product of the group, and never subscribed in it.
    /// Apple: https://developer.apple.com/documentation/storekit/implementing-introductory-offers-in-your-app,
    /// https://developer.apple.com/documentation/storekit/product/subscriptioninfo/iseligibleforintrooffer
    public func isEligibleForIntroOffer(account: String, productID: String) -> Bool {
        guard let group = catalog.product(productID)?.subscriptionGroupID else { return false }
        if introductoryOfferUsed.contains("\(account)|\(group)") { return false }
        return subscriptions[SubscriptionKey(account: account, groupID: group)] == nil
    }

    /// The catalog offer `offerID` of `product` and its `offerType`: 2 promotional, 3 offer code, 4 win-back.
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/offertype-swift.struct
    public func catalogOffer(_ offerID: String, of product: CatalogProduct) -> (offer: SubscriptionOffer, offerType: Int)? {
        if let offer = product.promotionalOffers.first(where: { $0.offerID == offerID }) { return (offer, 2) }
        if let offer = product.codeOffers.first(where: { $0.offerID == offerID }) { return (offer, 3) }
        if let offer = product.winBackOffers.first(where: { $0.offerID == offerID }) { return (offer, 4) }
        return nil
    }

    /// Whether a subscription is churned: expired (or revoked) with its end in the past and auto-renew off, the
    /// only subscriptions win-back offers are for. Subscriptions in billing retry or a grace period are not.
    /// Apple: https://developer.apple.com/documentation/storekit/supporting-win-back-offers-in-your-app
    func isChurned(_ sub: SubscriptionState) -> Bool {
        (sub.state == .expired || sub.state == .revoked) && !sub.autoRenewStatus && sub.expiresDate <= now
    }

    /// Why `account` may not use `offer` on `product` now, or `nil` when it may (or `offer` names no catalog
    /// offer): a win-back offer needs a churned subscription in the product's group, so a customer who never
    /// subscribed, or one still subscribed, is not eligible (`Product.PurchaseError.ineligibleForOffer`).
    /// Apple: https://developer.apple.com/documentation/storekit/supporting-win-back-offers-in-your-app,
    /// https://developer.apple.com/documentation/storekit/product/purchaseerror/ineligibleforoffer
    public func offerIneligibility(_ offer: String?, productID: String, account: String) -> String? {
        guard let offer, let product = catalog.product(productID), let group = product.subscriptionGroupID,
              let (_, offerType) = catalogOffer(offer, of: product), offerType == 4 else { return nil }
        guard let sub = subscriptions[SubscriptionKey(account: account, groupID: group)],
              transaction(sub.latestTransactionId)?.inAppOwnershipType == "PURCHASED" else {
            return "win-back offer \"\(offer)\" is for churned subscribers; account \"\(account)\" never subscribed in the group"
        }
        guard isChurned(sub) else {
            return "win-back offer \"\(offer)\" is for churned subscribers (expired, auto-renew off); account \"\(account)\" is "
                + "\(sub.state.rawValue)\(sub.autoRenewStatus ? " with auto-renew on" : "")"
        }
        return nil
    }

    /// The offer a purchase of `product` uses: the one `offer` names, else the introductory offer when the
    /// account is eligible for it (it applies by itself; `"introductory"` asks for nothing more).
    /// - Throws: ``StoreError`` when `offer` names no offer of the product, or the account may not use it.
    func offerUse(_ offer: String?, product: CatalogProduct, account: String) throws(StoreError) -> SubscriptionOfferUse? {
        guard let offer, offer != "introductory" else {
            guard let intro = product.introductoryOffer, isEligibleForIntroOffer(account: account, productID: product.productID) else {
                return nil
            }
            return Self.use(intro, offerType: 1)
        }
        guard let (details, offerType) = catalogOffer(offer, of: product) else {
            throw StoreError("\"\(product.productID)\" has no offer \"\(offer)\"")
        }
        if let reason = offerIneligibility(offer, productID: product.productID, account: account) { throw StoreError(reason) }
        return Self.use(details, offerType: offerType)
    }

    /// An offer's terms for one transaction: pay as you go charges its price per period for its number of
    /// periods; pay up front charges its price once for the whole offer; a free trial charges nothing for it.
    /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptionoffer/paymentmode-swift.struct
    static func use(_ details: SubscriptionOffer, offerType: Int) -> SubscriptionOfferUse {
        let discountType = switch details.paymentMode {
        case .freeTrial: "FREE_TRIAL"
        case .payAsYouGo: "PAY_AS_YOU_GO"
        case .payUpFront: "PAY_UP_FRONT"
        }
        let price = details.paymentMode == .freeTrial ? 0 : CatalogProduct.milliunits(details.displayPrice ?? "0")
        let payAsYouGo = details.paymentMode == .payAsYouGo
        return SubscriptionOfferUse(offerType: offerType, offerIdentifier: offerType == 1 ? nil : details.offerID, discountType: discountType,
                                    period: details.subscriptionPeriod.description,
                                    duration: payAsYouGo ? details.subscriptionPeriod : details.totalDuration, priceMilliunits: price,
                                    transactions: payAsYouGo ? max(1, details.numberOfPeriods) : 1)
    }

    /// What the next renewal charges: the upcoming offer's price when one applies to the renewal product, the
    /// subscriber's price for the current product (raised by a requested increase), or the renewal product's
    /// price after a downgrade or crossgrade.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/renewalprice
    func renewalTerms(of sub: SubscriptionState) -> RenewalTerms {
        if let upcoming = sub.upcomingOffer, upcoming.productId == sub.autoRenewProductId {
            return RenewalTerms(price: upcoming.use.priceMilliunits, offer: upcoming.use)
        }
        if sub.autoRenewProductId == sub.productId {
            return RenewalTerms(price: sub.increasedPrice ?? sub.price, offer: nil)
        }
        return RenewalTerms(price: catalog.product(sub.autoRenewProductId).map { currentPrice(of: $0) } ?? 0, offer: nil)
    }

    /// A subscription's renewal info as it is now.
    public func renewalInfoSnapshot(_ key: SubscriptionKey) -> RenewalInfoSnapshot? {
        subscriptions[key].map(renewalInfoSnapshot(of:))
    }

    /// The renewal info of `sub` (an account's own subscription, or one shared with it) as it is now.
    public func renewalInfoSnapshot(of sub: SubscriptionState) -> RenewalInfoSnapshot {
        let key = SubscriptionKey(account: sub.account, groupID: sub.groupID)
        var winBack: [String] = []
        if isChurned(sub), transaction(sub.latestTransactionId)?.inAppOwnershipType == "PURCHASED" {
            winBack = (catalog.group(key.groupID)?.productIDs ?? []).compactMap { catalog.product($0) }
                .flatMap(\.winBackOffers).compactMap(\.offerID)
        }
        return RenewalInfoSnapshot(subscription: sub, terms: renewalTerms(of: sub), eligibleWinBackOfferIds: winBack,
                                   appTransactionId: appTransactionIds[key.account])
    }
}
