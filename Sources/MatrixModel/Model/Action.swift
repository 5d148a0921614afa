/// What a step does. Names mirror `SKTestSession` and Xcode's Transaction Manager.
///
/// Apple: https://developer.apple.com/documentation/storekittest/sktestsession
public enum Action: String, Sendable, Hashable, Codable, CaseIterable {
    /// Start the app (its `Transaction.updates` listener starts here).
    case launch
    /// Quit and start the app again.
    case relaunch
    /// Quit the app; events until the next `launch` reach it only then.
    case quit
    /// Delete the app and install it again: app storage is gone, purchases stay with the account. The app is
    /// launched.
    case reinstall
    /// Continue on another device signed in to the same account (fresh install, not launched).
    case switchDevice
    /// Buy a product in the app with `Product.purchase(options:)`.
    case purchase
    /// A parent approves the pending Ask to Buy request.
    case approveAskToBuy
    /// A parent declines the pending Ask to Buy request.
    case declineAskToBuy
    /// The customer resolves the issue that interrupted a purchase.
    case resolveIssue
    /// The app's Restore Purchases button (`AppStore.sync()`).
    case restore
    /// A purchase made outside the app: another device, an offer code, the Transaction Manager.
    case purchaseOutsideApp
    /// Move the clock to the next renewal, `count` times.
    case renew
    /// Move the clock `by` a duration or `to` a point of the subscription's life.
    case advanceTime
    /// Turn off auto-renew (the customer cancels the subscription).
    case disableAutoRenew
    /// Turn auto-renew back on.
    case enableAutoRenew
    /// End the subscription now, as `SKTestSession.expireSubscription(productIdentifier:)` does.
    case expire
    /// The next renewal fails with a billing issue.
    case failRenewal
    /// The billing issue is resolved; the subscription renews.
    case recoverBilling
    /// The customer asks Apple for a refund of the latest transaction of the product: for a consumable or an
    /// auto-renewable subscription the App Store sends `CONSUMPTION_REQUEST`; `refund` or `declineRefund` answers.
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype
    case requestRefund
    /// The App Store refunds the latest transaction of the product.
    case refund
    /// The App Store declines a refund request.
    case declineRefund
    /// The App Store reverses a refund it granted earlier.
    case reverseRefund
    /// Family Sharing access ends for the acting member (left the family, or sharing turned off).
    case revokeFamilySharing
    /// The developer raises the subscription's price to `price` (customer consent needed).
    case requestPriceIncrease
    /// The customer consents to the price increase.
    case consentToPriceIncrease
    /// The customer declines the price increase; auto-renew turns off.
    case declinePriceIncrease
    /// The developer extends the renewal date of the subscription by `extendByDays` (1 to 90; at most twice a
    /// year): `RENEWAL_EXTENDED`.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/extend-a-subscription-renewal-date
    case extendRenewalDate
    /// The developer extends the renewal date of every active subscriber of the product by `extendByDays`:
    /// `RENEWAL_EXTENDED` for each, `RENEWAL_EXTENSION` / `FAILURE` for those that cannot be extended, and
    /// `RENEWAL_EXTENSION` / `SUMMARY` to the acting account.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/extend-subscription-renewal-dates-for-all-active-subscribers
    case extendRenewalDatesForAllSubscribers
    /// The developer asks the App Store Server API for a `TEST` notification.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/request-a-test-notification
    case requestTestNotification
    /// The developer removes the product from sale (App Store Connect, Pricing and Availability): it can no
    /// longer be bought, and a subscription that would renew to it expires at its next renewal date with
    /// `expirationIntent` 4 and `EXPIRED` / `PRODUCT_NOT_FOR_SALE`.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/expirationintent
    case removeFromSale
    /// Look without acting.
    case observe

    /// Whether the step needs `product`.
    public var requiresProduct: Bool {
        switch self {
        case .purchase, .purchaseOutsideApp, .requestRefund, .refund, .declineRefund, .reverseRefund, .removeFromSale,
             .extendRenewalDatesForAllSubscribers: true
        default: false
        }
    }

    /// Whether the step may name `product` (to pick the subscription acted on).
    public var acceptsProduct: Bool {
        switch self {
        case .launch, .relaunch, .quit, .reinstall, .switchDevice, .restore, .observe, .requestTestNotification: false
        default: true
        }
    }
}
