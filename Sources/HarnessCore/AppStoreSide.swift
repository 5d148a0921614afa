import MatrixModel

/// The App Store's side of a matrix step, played by the environment that stands in for the App Store: the
/// embedded simulator, or StoreKit Testing's `SKTestSession` in Xcode. ``perform(_:account:)`` maps each matrix
/// action onto these calls, once for every environment.
///
/// Each call acts for `account` (the step's account, else the case's); `productID` `nil` means the account's only
/// subscription. Calls return the transactions they made or changed, when they know them. A call the environment
/// cannot make throws ``AppStoreSideUnsupported``; the step is then recorded `skipped` with the reason.
public protocol AppStoreSide: Sendable {
    /// A parent approves the account's pending Ask to Buy request.
    func approveAskToBuy(account: String, productID: String?) async throws -> [String]
    /// A parent declines the account's pending Ask to Buy request.
    func declineAskToBuy(account: String, productID: String?) async throws
    /// The customer resolves the issue that interrupted a purchase.
    func resolveIssue(account: String, productID: String?) async throws -> [String]
    /// A purchase made outside the app (another device, an offer code).
    func purchaseOutsideApp(account: String, productID: String, quantity: Int, offer: String?) async throws -> [String]
    /// The subscription renews `count` times.
    func renew(account: String, productID: String?, count: Int) async throws
    /// The store's clock moves by `duration`.
    func advanceTime(by duration: ISO8601Duration) async throws
    /// The store's clock moves to a point of the account's subscription's life.
    func advanceTime(to point: TimePoint, account: String, productID: String?) async throws
    /// The customer turns auto-renew on or off.
    func setAutoRenew(_ willRenew: Bool, account: String, productID: String?) async throws
    /// The subscription ends now.
    func expire(account: String, productID: String?) async throws
    /// The next renewal fails with a billing issue; `gracePeriod` `nil` follows the store settings.
    func failNextRenewal(account: String, productID: String?, gracePeriod: Bool?) async throws
    /// The billing issue is resolved and the subscription renews.
    func recoverBilling(account: String, productID: String?) async throws -> [String]
    /// The App Store refunds the latest transaction of the product (`revocationReason` 0 or 1).
    func refund(account: String, productID: String, reason: Int) async throws -> [String]
    /// The App Store declines a refund request.
    func declineRefund(account: String, productID: String) async throws
    /// The App Store reverses a refund it granted.
    func reverseRefund(account: String, productID: String) async throws
    /// Family Sharing ends for `member`.
    func revokeFamilySharing(member: String, productID: String?) async throws
    /// The developer raises the subscription's price to `price` (a decimal in the storefront's currency, `"5.99"`),
    /// with consent needed.
    func requestPriceIncrease(account: String, productID: String?, price: String) async throws
    /// The customer consents to, or declines, the price increase.
    func respondToPriceIncrease(consent: Bool, account: String, productID: String?) async throws
    /// The developer takes the product off sale.
    func removeFromSale(productID: String) async throws
    /// The customer asks for a refund of the product's latest transaction; the App Store asks the developer for
    /// consumption information (`CONSUMPTION_REQUEST`).
    func requestRefund(account: String, productID: String) async throws
    /// The developer extends the subscription's renewal date by `days` (App Store Server API).
    func extendRenewalDate(account: String, productID: String?, days: Int) async throws -> [String]
    /// The developer extends the renewal date of every active subscriber of the product by `days`.
    func extendRenewalDatesForAllSubscribers(productID: String, days: Int, account: String) async throws -> [String]
    /// The developer asks the App Store for a `TEST` notification.
    func requestTestNotification(account: String) async throws
}

/// The environment cannot play this part of the App Store.
public struct AppStoreSideUnsupported: Error, Sendable, Hashable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

extension AppStoreSide {
    /// Performs the App Store's side of `step` for `account`; actions that are the app's (launch, purchase,
    /// restore…) or only look do nothing here.
    ///
    /// - Returns: the transactions the step made or changed, when the environment knows them.
    /// - Throws: ``AppStoreSideUnsupported`` when the environment cannot perform the step, or the environment's
    ///   error when the step is impossible in the store's state (no such subscription, nothing pending).
    public func perform(_ step: Step, account: String) async throws -> [String] {
        switch step.action {
        case .approveAskToBuy:
            return try await approveAskToBuy(account: account, productID: step.product)
        case .declineAskToBuy:
            try await declineAskToBuy(account: account, productID: step.product)
        case .resolveIssue:
            return try await resolveIssue(account: account, productID: step.product)
        case .purchaseOutsideApp:
            return try await purchaseOutsideApp(account: account, productID: step.product ?? "", quantity: step.quantity ?? 1,
                                                offer: step.offer)
        case .renew:
            try await renew(account: account, productID: step.product, count: step.count ?? 1)
        case .advanceTime:
            if let by = step.by {
                try await advanceTime(by: by)
            } else if let point = step.to {
                try await advanceTime(to: point, account: account, productID: step.product)
            }
        case .disableAutoRenew:
            try await setAutoRenew(false, account: account, productID: step.product)
        case .enableAutoRenew:
            try await setAutoRenew(true, account: account, productID: step.product)
        case .expire:
            try await expire(account: account, productID: step.product)
        case .failRenewal:
            try await failNextRenewal(account: account, productID: step.product, gracePeriod: step.gracePeriod)
        case .recoverBilling:
            return try await recoverBilling(account: account, productID: step.product)
        case .refund:
            return try await refund(account: account, productID: step.product ?? "", reason: step.reason ?? 0)
        case .declineRefund:
            try await declineRefund(account: account, productID: step.product ?? "")
        case .reverseRefund:
            try await reverseRefund(account: account, productID: step.product ?? "")
        case .revokeFamilySharing:
            try await revokeFamilySharing(member: account, productID: step.product)
        case .requestPriceIncrease:
            // The loader requires the new price (MatrixDecoder+Steps); a step built in code without one is refused.
            guard let price = step.price else { throw AppStoreSideUnsupported("requestPriceIncrease needs the new price") }
            try await requestPriceIncrease(account: account, productID: step.product, price: price)
        case .consentToPriceIncrease:
            try await respondToPriceIncrease(consent: true, account: account, productID: step.product)
        case .declinePriceIncrease:
            try await respondToPriceIncrease(consent: false, account: account, productID: step.product)
        case .removeFromSale:
            try await removeFromSale(productID: step.product ?? "")
        case .requestRefund:
            try await requestRefund(account: account, productID: step.product ?? "")
        case .extendRenewalDate:
            return try await extendRenewalDate(account: account, productID: step.product, days: step.extendByDays ?? 0)
        case .extendRenewalDatesForAllSubscribers:
            return try await extendRenewalDatesForAllSubscribers(productID: step.product ?? "", days: step.extendByDays ?? 0,
                                                                 account: account)
        case .requestTestNotification:
            try await requestTestNotification(account: account)
        case .observe, .launch, .relaunch, .quit, .reinstall, .switchDevice, .purchase, .restore:
            break
        }
        return []
    }
}
