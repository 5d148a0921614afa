import Foundation
import Testing
import AppStoreModels
import MatrixModel
import StoreSimulator
import TestSupport

/// Promotional, win-back and code offers: on a new subscription, with an upgrade or a downgrade, for the active
/// product, and who may redeem them.
/// Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype (OFFER_REDEEMED)
@Suite("Subscription offers")
struct OfferTests {
    let monthly = ExampleMatrix.monthly
    let yearly = ExampleMatrix.yearly
    let group = ExampleMatrix.groupName

    /// The example catalog with offers: a promotional "loyal" month at 0.99 and a code offer on both plans, and a
    /// free win-back month on the yearly plan.
    static let catalog: StoreKitConfiguration = {
        var catalog = ExampleMatrix.catalog
        for index in catalog.products.indices where catalog.products[index].type == .autoRenewable {
            catalog.products[index].promotionalOffers = [
                SubscriptionOffer(offerID: "loyal", paymentMode: .payAsYouGo, subscriptionPeriod: ISO8601Duration(months: 1), displayPrice: "0.99"),
            ]
            catalog.products[index].codeOffers = [
                SubscriptionOffer(offerID: "press", paymentMode: .freeTrial, subscriptionPeriod: ISO8601Duration(months: 3)),
            ]
            if catalog.products[index].productID == ExampleMatrix.yearly {
                catalog.products[index].winBackOffers = [
                    SubscriptionOffer(offerID: "comeback", paymentMode: .freeTrial, subscriptionPeriod: ISO8601Duration(months: 1)),
                ]
            }
        }
        return catalog
    }()

    func harness() throws -> Harness { try Harness(catalog: Self.catalog) }

    func renewalInfo(_ h: Harness) throws -> JWSRenewalInfoDecodedPayload {
        let key = try h.store { try $0.subscriptionKey(account: "a", productID: ExampleMatrix.yearly) }
        return try #require(h.store { $0.renewalInfoSnapshot(key) }).payload(environment: "Sandbox", signedDate: 0, currency: "USD")
    }

    // Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype (OFFER_REDEEMED:
    // "If the subtype is UPGRADE, the customer redeemed an offer to upgrade their active subscription, which goes
    // into effect immediately")
    @Test("an upgrade with an offer is OFFER_REDEEMED/UPGRADE and the new transaction carries the offer (notificationtype)")
    func upgradeWithOffer() async throws {
        let h = try harness()
        _ = try await h.step(.launch)
        _ = try await h.step(.purchase, monthly)
        let upgraded = try await h.step(.purchase, yearly) { $0.offer = "loyal" }
        #expect(upgraded.notifications == ["OFFER_REDEEMED/UPGRADE"])
        #expect(upgraded.access == ["premium"])
        let id = try #require(upgraded.transactions.first { $0.productId == yearly }?.transactionId)
        let transaction = try #require(h.store { $0.transaction(id) })
        #expect(transaction.offerType == 2 && transaction.offerIdentifier == "loyal" && transaction.price == 990)
        #expect(transaction.expiresDate == ISO8601Duration(months: 1).added(to: transaction.purchaseDate))
        // After the offer's month the plan renews at its regular price.
        let renewed = try await h.step(.renew, yearly)
        #expect(renewed.transactions.first { $0.productId == yearly }?.price == 39990)
    }

    // Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype (OFFER_REDEEMED:
    // DOWNGRADE, "goes into effect at the next renewal date")
    @Test("a downgrade with an offer is OFFER_REDEEMED/DOWNGRADE; the renewal info announces the offer and the renewal uses it (notificationtype)")
    func downgradeWithOffer() async throws {
        let h = try harness()
        _ = try await h.step(.launch)
        _ = try await h.step(.purchase, yearly)
        let chosen = try await h.step(.purchase, monthly) { $0.offer = "loyal" }
        #expect(chosen.notifications == ["OFFER_REDEEMED/DOWNGRADE"])
        #expect(chosen.access == ["premium"])
        let announced = try renewalInfo(h)
        #expect(announced.autoRenewProductId == monthly && announced.offerType == 2 && announced.offerIdentifier == "loyal")
        #expect(announced.renewalPrice == 990)
        let renewed = try await h.step(.renew, yearly)
        let transaction = try #require(renewed.transactions.first { $0.productId == monthly })
        #expect(renewed.access == ["plus"] && transaction.offerType == 2 && transaction.price == 990)
    }

    // Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype (OFFER_REDEEMED
    // without a subtype: an offer for the active subscription)
    @Test("an offer redeemed for the active product is OFFER_REDEEMED without subtype and applies from the next renewal (notificationtype)")
    func offerForActiveProduct() async throws {
        let h = try harness()
        _ = try await h.step(.launch)
        _ = try await h.step(.purchase, yearly)
        let redeemed = try await h.step(.purchase, yearly) { $0.offer = "loyal" }
        #expect(redeemed.notifications == ["OFFER_REDEEMED"])
        #expect(try renewalInfo(h).offerType == 2 && (try renewalInfo(h).renewalPrice) == 990)
        let first = try await h.step(.renew, yearly)
        #expect(first.transactions.first { $0.productId == yearly }?.offerType == 2)
        let second = try await h.step(.renew, yearly)
        let regular = try #require(second.transactions.first { $0.productId == yearly })
        #expect(regular.offerType == nil && regular.price == 39990)
    }

    // Apple: https://developer.apple.com/documentation/storekit/supporting-win-back-offers-in-your-app ("A churned
    // subscription is one that has an expirationDate in the past, and a willAutoRenew value of false"),
    // https://developer.apple.com/documentation/storekit/product/purchaseerror/ineligibleforoffer
    @Test("win-back offers only for churned subscribers: a never-subscribed or subscribed account gets ineligibleForOffer (supporting-win-back-offers-in-your-app)")
    func winBackEligibility() async throws {
        let never = try harness()
        _ = try await never.step(.launch)
        let refused = try await never.step(.purchase, yearly) { $0.offer = "comeback" }
        #expect(refused.result == "failed" && refused.message?.contains("ineligibleForOffer") == true)
        #expect(refused.access == [] && refused.notifications == [])

        let churned = try harness()
        _ = try await churned.step(.launch)
        _ = try await churned.step(.purchase, yearly)
        let active = try await churned.step(.purchase, yearly) { $0.offer = "comeback" }
        #expect(active.result == "failed" && active.message?.contains("ineligibleForOffer") == true)
        _ = try await churned.step(.disableAutoRenew, yearly)
        _ = try await churned.step(.advanceTime, yearly) { $0.to = .expiration }
        #expect(try renewalInfo(churned).eligibleWinBackOfferIds == ["comeback"])
        let back = try await churned.step(.purchase, yearly) { $0.offer = "comeback" }
        #expect(back.result == "success" && back.notifications == ["OFFER_REDEEMED/RESUBSCRIBE"] && back.access == ["premium"])
        #expect(back.transactions.first { $0.productId == yearly }?.offerType == 4)
        #expect(try renewalInfo(churned).eligibleWinBackOfferIds == nil)
    }

    // Apple: https://developer.apple.com/documentation/storekit/transaction/offertype-swift.struct/code
    @Test("an offer code from the catalog's codeOffers is redeemed outside the app: offerType 3, OFFER_REDEEMED/INITIAL_BUY (offertype code)")
    func offerCode() async throws {
        let h = try harness()
        _ = try await h.step(.launch)
        let redeemed = try await h.step(.purchaseOutsideApp, yearly) { $0.offer = "press" }
        #expect(redeemed.notifications == ["OFFER_REDEEMED/INITIAL_BUY"] && redeemed.access == ["premium"])
        let id = try #require(redeemed.transactions.first { $0.productId == yearly }?.transactionId)
        let transaction = try #require(h.store { $0.transaction(id) })
        #expect(transaction.offerType == 3 && transaction.offerIdentifier == "press" && transaction.price == 0)
        #expect(transaction.expiresDate == ISO8601Duration(months: 3).added(to: transaction.purchaseDate))
        // StoreKit's purchase call has no option for an offer code: the store refuses one, and the look-alike
        // cannot ask for it (the loader reports such a step).
        let other = try harness()
        _ = try await other.step(.launch)
        #expect(throws: StoreError.self) {
            try other.store { try $0.purchase(account: "a", productID: ExampleMatrix.yearly, offer: "press", device: "a/device-1") }
        }
        let plain = try await other.step(.purchase, yearly) { $0.offer = "press" }
        #expect(plain.result == "success" && plain.transactions.first { $0.productId == yearly }?.offerType == nil)
    }
}
