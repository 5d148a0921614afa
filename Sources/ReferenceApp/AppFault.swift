import SimulatedStoreKit

/// A realistic bug the reference app can be run with (`--app-fault NAME`), so that `matrix score` can show
/// which bugs a matrix catches. Each stands for a kind of bug teams have shipped.
public enum AppFault: String, Sendable, Hashable, Codable, CaseIterable {
    /// The `Transaction.updates` listener and the entitlement check start with the store view, not at launch:
    /// an Ask to Buy approval or renewal delivered at launch is missed.
    case lateUpdatesListener
    /// Updates whose transaction ID the app already processed are dropped, so a refund or revocation of an
    /// earlier purchase is ignored.
    case dropsProcessedTransactionIds
    /// Entitlements are added to an in-memory set that is never cleared: a refund takes effect only after
    /// relaunch.
    case entitlementSetNeverCleared
    /// A `pending` purchase result is shown as a failure.
    case pendingTreatedAsFailure
    /// A `pending` purchase unlocks the content before approval.
    case pendingUnlocks
    /// The app finishes a transaction before delivering it; a crash in between loses the purchase.
    case finishBeforeDelivery
    /// Consumables are credited per event (purchase result and every update) instead of once per transaction ID.
    case creditsConsumablePerEvent
    /// Entitlements are filtered by `expirationDate > now`, which drops customers in a billing grace period.
    case deniesGracePeriod
    /// A subscription in billing retry is treated as active.
    case grantsBillingRetry
    /// After an upgrade, the old product (whose transaction `isUpgraded`) still grants access.
    case keepsUpgradedProduct
    /// A non-renewing subscription never expires (StoreKit gives it no expiration date; the app must).
    case nonRenewingNeverExpires
    /// Restore reports success even when there is nothing to restore.
    case restoreReportsSuccess
    /// Entitlements are read once at launch and never refreshed while the app runs.
    case entitlementsReadOnceAtLaunch
    /// The app only listens to `Transaction.updates` and ignores the result of its own `purchase()` call,
    /// which updates does not re-emit.
    case ignoresPurchaseResult
    /// Transactions shared through Family Sharing (`FAMILY_SHARED`) are ignored.
    case ignoresFamilySharing
    /// An expired subscription keeps its tier: the app grants every subscription it ever saw.
    case expiredSubscriptionKept
    /// Entitlements come from purchases recorded in the app's local storage, so a second device or a
    /// reinstall restores nothing.
    case localStorageEntitlements
    /// The app caches the expiration date of the subscription transaction it delivered and does not process
    /// renewals delivered at launch; renewals made while it was closed look like expiry.
    case cachesExpirationDate
    /// Consumable transactions are never finished and are credited on every delivery, so each launch replays
    /// them and credits them again.
    case consumablesNeverFinished
    /// The app computes a subscription's expiry as purchase date plus the calendar period instead of reading
    /// `expiresDate`, so accelerated Sandbox and TestFlight periods, and their renewal limits, look like bugs.
    case computesExpiryFromCalendar
    /// Revocation is left to the app's server (App Store Server Notifications): entitlements come from
    /// `Transaction.all` checked against expiry only, and `revocationDate` is never read on the device, so a refund
    /// or a Family Sharing revocation keeps access (a refunded lifetime purchase forever).
    /// Source: https://github.com/qonversion/qonversion-ios-sdk/pull/739
    case revocationLeftToServer
    /// Two subscription groups (or a subscription and another product) map to one tier, and the tier follows the
    /// newest transaction among its products: refunding one group's newest transaction drops the tier although
    /// the other group's subscription is active.
    /// Source: https://github.com/superwall/Superwall-iOS/pull/518
    case tierFromNewestTransaction
    /// A purchase whose transaction is not for the product bought is shown as failed: a downgrade, or a crossgrade
    /// to another duration, takes effect at the next renewal and `purchase()` returns the current product's
    /// transaction.
    /// Source: https://github.com/RevenueCat/purchases-ios/pull/3028, https://github.com/superwall/Superwall-iOS/pull/173
    case deferredChangeTreatedAsFailure
    /// The store view shows prices written into the app (`$` and the price the developer typed) instead of
    /// `Product.displayPrice`: wrong in another storefront's currency and after a price change.
    /// Source: https://github.com/PatrickDavy/SightScreen/issues/37
    case hardCodedPrice
    /// Subscription access comes from the first element of each group's `Product.SubscriptionInfo.status` array,
    /// which is not ordered by entitlement: a family member whose own subscription has ended while the one the
    /// family shares is active loses access, since the ended one comes first.
    /// Source: https://github.com/hyodotdev/openiap/pull/99 (review: `statusArray.first` is not the entitled
    /// subscription; Apple: the array "can have more than one subscription status if your subscription supports
    /// Family Sharing")
    case firstStatusOnly

    /// One sentence on the bug, for `matrix score` and `--help`.
    public var summary: String {
        switch self {
        case .lateUpdatesListener: "updates listener and entitlement check start with the store view, not at launch"
        case .dropsProcessedTransactionIds: "updates with an already-processed transaction ID are dropped (refunds ignored)"
        case .entitlementSetNeverCleared: "entitlements kept in a set that is never cleared (refund needs a relaunch)"
        case .pendingTreatedAsFailure: "a pending (Ask to Buy) purchase is shown as a failure"
        case .pendingUnlocks: "a pending (Ask to Buy) purchase unlocks before approval"
        case .finishBeforeDelivery: "transactions finished before delivery; a crash in between loses the purchase"
        case .creditsConsumablePerEvent: "consumables credited per event, not once per transaction ID"
        case .deniesGracePeriod: "entitlements filtered by expiration date, denying the billing grace period"
        case .grantsBillingRetry: "a subscription in billing retry is treated as active"
        case .keepsUpgradedProduct: "the upgraded-from product still grants access after an upgrade"
        case .nonRenewingNeverExpires: "non-renewing subscriptions never expire"
        case .restoreReportsSuccess: "restore reports success with nothing to restore"
        case .entitlementsReadOnceAtLaunch: "entitlements read once at launch, never refreshed"
        case .ignoresPurchaseResult: "only Transaction.updates is observed; the purchase() result is ignored"
        case .ignoresFamilySharing: "FAMILY_SHARED transactions are ignored"
        case .expiredSubscriptionKept: "an expired subscription keeps its tier"
        case .localStorageEntitlements: "entitlements from local storage: nothing on a second device or after reinstall"
        case .cachesExpirationDate: "cached expiration date; renewals made while closed are missed"
        case .consumablesNeverFinished: "consumables never finished, replayed and credited again at every launch"
        case .computesExpiryFromCalendar: "expiry computed from the purchase date and calendar period, not expiresDate"
        case .revocationLeftToServer: "revocation left to server notifications; revocationDate never read on the device"
        case .tierFromNewestTransaction: "a tier of two groups follows its newest transaction; one group's refund drops it"
        case .deferredChangeTreatedAsFailure: "a deferred plan change (downgrade) is shown as a failed purchase"
        case .hardCodedPrice: "prices written into the app shown instead of Product.displayPrice"
        case .firstStatusOnly: "subscription access from the first status of a group; a second (Family Sharing) one is never read"
        }
    }
}
