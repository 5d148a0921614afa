import HarnessCore
import MatrixModel
import SimulatedStoreKit
import StoreSimulator

/// The embedded App Store playing the App Store's side of a step: each call runs on the case's store under its
/// lock. Errors are the store's (``StoreError``: no such subscription, nothing pending).
package struct SimulatorStoreSide: AppStoreSide {
    package init(store: SimulatedStore) {
        self.store = store
    }

    let store: SimulatedStore

    private func on<Result: Sendable>(_ body: (AppStoreSimulator) throws -> Result) throws -> Result {
        try store.withStore { simulator in try body(simulator) }
    }

    package func approveAskToBuy(account: String, productID: String?) throws -> [String] {
        [try on { try $0.approveAskToBuy(account: account, productID: productID) }]
    }

    package func declineAskToBuy(account: String, productID: String?) throws {
        try on { try $0.declineAskToBuy(account: account, productID: productID) }
    }

    package func resolveIssue(account: String, productID: String?) throws -> [String] {
        [try on { try $0.resolveIssue(account: account, productID: productID) }]
    }

    package func purchaseOutsideApp(account: String, productID: String, quantity: Int, offer: String?) throws -> [String] {
        [try on { try $0.purchaseOutsideApp(account: account, productID: productID, quantity: quantity, offer: offer) }]
    }

    package func renew(account: String, productID: String?, count: Int) throws {
        try on { try $0.renew(account: account, productID: productID, count: count) }
    }

    package func advanceTime(by duration: ISO8601Duration) throws {
        try on { store in try store.advance(to: duration.added(to: store.now)) }
    }

    package func advanceTime(to point: TimePoint, account: String, productID: String?) throws {
        try on { store in try store.advance(to: try store.time(of: point, account: account, productID: productID)) }
    }

    package func setAutoRenew(_ willRenew: Bool, account: String, productID: String?) throws {
        try on { try $0.setAutoRenew(willRenew, account: account, productID: productID) }
    }

    package func expire(account: String, productID: String?) throws {
        try on { try $0.expireNow(account: account, productID: productID) }
    }

    package func failNextRenewal(account: String, productID: String?, gracePeriod: Bool?) throws {
        try on { try $0.failNextRenewal(account: account, productID: productID, gracePeriod: gracePeriod) }
    }

    package func recoverBilling(account: String, productID: String?) throws -> [String] {
        [try on { try $0.recoverBilling(account: account, productID: productID) }]
    }

    package func refund(account: String, productID: String, reason: Int) throws -> [String] {
        [try on { try $0.refund(account: account, productID: productID, reason: reason) }]
    }

    package func declineRefund(account: String, productID: String) throws {
        try on { try $0.declineRefund(account: account, productID: productID) }
    }

    package func reverseRefund(account: String, productID: String) throws {
        try on { try $0.reverseRefund(account: account, productID: productID) }
    }

    package func revokeFamilySharing(member: String, productID: String?) throws {
        try on { try $0.revokeFamilySharing(member: member, productID: productID) }
    }

    package func requestPriceIncrease(account: String, productID: String?, price: String) throws {
        try on { try $0.requestPriceIncrease(account: account, productID: productID, price: price) }
    }

    package func respondToPriceIncrease(consent: Bool, account: String, productID: String?) throws {
        try on { try $0.respondToPriceIncrease(consent: consent, account: account, productID: productID) }
    }

    package func removeFromSale(productID: String) throws {
        try on { try $0.removeFromSale(productID: productID) }
    }

    package func requestRefund(account: String, productID: String) throws {
        try on { try $0.requestRefund(account: account, productID: productID) }
    }

    package func extendRenewalDate(account: String, productID: String?, days: Int) throws -> [String] {
        [try on { try $0.extendRenewalDate(account: account, productID: productID, days: days) }]
    }

    package func extendRenewalDatesForAllSubscribers(productID: String, days: Int, account: String) throws -> [String] {
        try on { try $0.extendRenewalDatesForAllSubscribers(productID: productID, days: days, account: account) }
    }

    package func requestTestNotification(account: String) throws {
        try on { $0.requestTestNotification(account: account) }
    }
}
