
/// How a person makes the App Store do something in Sandbox (and TestFlight), as Apple's pages describe it: one
/// place for the words a guided run shows, `matrix plan` prints, and the limits ``GuidedLimits`` enforces.
///
/// Each case names one capability, says how to use it in a sentence or two, and cites the Apple page it comes
/// from (``source``). Where Apple documents no way to do something in Sandbox, ``GuidedLimits`` skips the step
/// and its reason cites the page that documents the only way there is.
package enum SandboxHowTo: String, CaseIterable, Sendable {
    case clearPurchaseHistory
    case renewalRate
    case storefront
    case interruptedPurchase
    case askToBuy
    case refund
    case declineRefund
    case billingIssue
    case gracePeriod
    case familySharing
    case priceIncrease
    case testFlightAccounts

    /// The way to do it, in a sentence or two.
    package var how: String {
        switch self {
        case .clearPurchaseHistory:
            "`matrix sandbox clear ALIAS` (App Store Connect: Users and Access > Sandbox > Clear Purchase History) resets the "
                + "Sandbox Apple Account's In-App Purchase and subscription history. Apple does not say that this restores "
                + "introductory offer eligibility, so a case that needs it gets an account of its own. After clearing, Apple "
                + "recommends AppStore.sync() (Restore Purchases) to see the change: https://developer.apple.com/forums/thread/739337"
        case .renewalRate:
            "`matrix sandbox set ALIAS --renewal-rate 3m|5m|15m|30m|1h` sets how fast the account's subscriptions renew; the rate "
                + "also sets the length of billing retry and of the billing grace period. Subscriptions renew at most 12 times."
        case .storefront:
            "Edit the Sandbox account's App Store country or region in App Store Connect (Users and Access > Sandbox), then sign "
                + "in again on the device; members of a Sandbox Test Family must share the organizer's country or region."
        case .interruptedPurchase:
            "`matrix sandbox set ALIAS --interrupt-purchases on` interrupts every purchase of the account until the tester "
                + "accepts the terms on the device or it is turned off again."
        case .askToBuy:
            "Sandbox simulates a child's Ask to Buy request only when the build passes "
                + "Product.PurchaseOption.simulatesAskToBuyInSandbox(true) to purchase(options:). Apple documents answering a "
                + "request only in StoreKit Testing in Xcode (SKTestSession.approveAskToBuyTransaction), so approving or "
                + "declining is skipped in Sandbox and TestFlight."
        case .refund:
            "In the app's refund request sheet (Transaction.beginRefundRequest), choose any reason and submit: the App Store "
                + "approves the request automatically in Sandbox and the app receives a revoked transaction."
        case .declineRefund:
            "In the app's refund request sheet, choose Issue > Other, type DECLINE and tap Request Refund: the App Store declines "
                + "the request automatically in Sandbox. Apple describes approved, declined and prorated refunds, not reversing one."
        case .billingIssue:
            "On the device (iOS 16 or later): Settings > Developer > Sandbox Apple Account > Manage > Account Settings, turn off "
                + "Allow Purchases & Renewals: purchases fail and subscriptions do not renew until it is turned on again, "
                + "which resolves the billing issue."
        case .gracePeriod:
            "The billing grace period is set per app in App Store Connect (Billing Grace Period, for Sandbox) and applies to "
                + "every auto-renewable subscription of the app, so cases that need different grace periods run in different "
                + "groups. Changes can take up to 1 hour to reach Sandbox."
        case .familySharing:
            "Add the Sandbox Apple Accounts to a Sandbox Test Family in App Store Connect (up to 6 members, all in the "
                + "organizer's country or region; one device each, or sign in to one device in turn), as StoreKit's article "
                + "\"Testing Family Sharing\" describes; removing a member from the family ends their Family Sharing access."
        case .priceIncrease:
            "Raise the subscription's price in App Store Connect; whether Apple asks existing subscribers to consent depends "
                + "on the size of the increase and the storefront (Apple's price increase thresholds). The price is the "
                + "product's, not Sandbox's: it reaches every subscriber, so such a case runs alone, on a product not yet on "
                + "sale. Changes can take up to 1 hour to reach Sandbox."
        case .testFlightAccounts:
            "TestFlight builds use Sandbox with the tester's own Apple Account (daily renewals, at most 6), whose purchase "
                + "history cannot be cleared; billing problems and other Sandbox scenarios need a Sandbox Apple Account "
                + "signed in under Settings > Developer."
        }
    }

    /// Apple's page.
    package var source: String {
        switch self {
        case .clearPurchaseHistory:
            "https://developer.apple.com/documentation/appstoreconnectapi/sandboxtestersclearpurchasehistoryrequestv2"
        case .renewalRate, .storefront, .familySharing:
            // Family Sharing: this page names Sandbox Test Families and their rules; StoreKit's article "Testing Family
            // Sharing" describes the test itself.
            "https://developer.apple.com/help/app-store-connect/test-in-app-purchases/manage-sandbox-apple-id-settings"
        case .interruptedPurchase:
            "https://developer.apple.com/documentation/storekit/testing-an-interrupted-purchase"
        case .askToBuy:
            "https://developer.apple.com/documentation/storekit/product/purchaseoption/simulatesasktobuyinsandbox(_:)"
        case .refund, .declineRefund:
            "https://developer.apple.com/documentation/storekit/testing-refund-requests"
        case .billingIssue:
            "https://developer.apple.com/documentation/storekit/testing-failing-subscription-renewals-and-in-app-purchases"
        case .gracePeriod:
            "https://developer.apple.com/help/app-store-connect/manage-subscriptions/enable-billing-grace-period-for-auto-renewable-subscriptions"
        case .priceIncrease:
            "https://developer.apple.com/help/app-store-connect/reference/in-app-purchases-and-subscriptions/auto-renewable-subscription-price-increase-thresholds"
        case .testFlightAccounts:
            "https://developer.apple.com/help/app-store-connect/test-a-beta-version/testing-subscriptions-and-in-app-purchases-in-testflight"
        }
    }

    /// Where on the device the billing switch is, for instructions.
    package static let allowPurchasesPath = "Settings > Developer > Sandbox Apple Account > Manage > Account Settings"

    /// Apple's page for answering Ask to Buy requests in StoreKit Testing in Xcode.
    static let xcodeAskToBuy = "https://developer.apple.com/documentation/storekittest/sktestsession/asktobuyenabled"
}
