import Foundation
import Testing
import MatrixModel
import SimulatedStoreKit
import StoreSimulator
import TestSupport

/// Introductory offers apply by themselves: StoreKit's purchase options can ask for a promotional or win-back
/// offer, never for the introductory one, which an eligible customer gets on a plain purchase.
/// Apple: https://developer.apple.com/documentation/storekit/product/subscriptionoffer,
/// https://developer.apple.com/documentation/storekit/implementing-introductory-offers-in-your-app
@Suite("Introductory offers")
struct IntroductoryOfferTests {
    let monthly = ExampleMatrix.monthly
    let group = ExampleMatrix.groupName

    /// Plus Monthly with a pay-as-you-go introductory offer: three months at 1.99, then 4.99.
    static let payAsYouGoCatalog: StoreKitConfiguration = {
        var catalog = ExampleMatrix.catalog
        if let index = catalog.products.firstIndex(where: { $0.productID == ExampleMatrix.monthly }) {
            catalog.products[index].introductoryOffer = SubscriptionOffer(paymentMode: .payAsYouGo, subscriptionPeriod: ISO8601Duration(months: 1),
                                                                         numberOfPeriods: 3, displayPrice: "1.99")
        }
        return catalog
    }()

    // Apple: https://developer.apple.com/documentation/storekit/product/subscriptionoffer
    @Test("an eligible customer's plain purchase gets the free trial (offerType 1, price 0, one week) and uses up eligibility (subscriptionoffer)")
    func appliesByItself() async throws {
        let h = try Harness()
        #expect(try await h.step(.launch).eligibleForIntroOffer[group] == true)
        let bought = try await h.step(.purchase, monthly)
        let trial = try #require(bought.transactions.first { $0.productId == monthly })
        #expect(trial.offerType == 1 && trial.price == 0 && trial.currency == "USD")
        #expect(trial.expiresDate == ISO8601Duration(weeks: 1).added(to: trial.purchaseDate))
        #expect(h.store { $0.transaction(trial.transactionId)?.offerDiscountType } == "FREE_TRIAL")
        #expect(bought.notifications == ["SUBSCRIBED/INITIAL_BUY"])
        #expect(bought.eligibleForIntroOffer[group] == false)
        // The trial's first renewal comes after the trial, at the regular price and without the offer.
        let renewed = try await h.step(.renew, monthly)
        let regular = try #require(renewed.transactions.first { $0.productId == monthly })
        #expect(regular.purchaseDate == trial.expiresDate)
        #expect(regular.offerType == nil && regular.price == 4990)
        #expect(regular.expiresDate == ISO8601Duration(months: 1).added(to: regular.purchaseDate))
        // Once used, no second introductory offer in the group: a resubscription pays the regular price.
        _ = try await h.step(.expire, monthly)
        let again = try await h.step(.purchase, monthly)
        let full = try #require(again.transactions.first { $0.productId == monthly })
        #expect(full.offerType == nil && full.price == 4990)
    }

    // Apple: https://developer.apple.com/documentation/storekit/product/subscriptionoffer/paymentmode-swift.struct/payasyougo,
    // https://developer.apple.com/documentation/appstoreserverapi/renewalprice
    @Test("pay as you go: each offer period is charged the offer price, the renewal info announces it, then the regular price follows (renewalprice)")
    func payAsYouGo() async throws {
        let h = try Harness(catalog: Self.payAsYouGoCatalog)
        _ = try await h.step(.launch)
        let first = try #require(try await h.step(.purchase, monthly).transactions.first { $0.productId == monthly })
        #expect(first.offerType == 1 && first.price == 1990)
        // Renewal info says the next period is still the offer's, at its price.
        let key = try h.store { try $0.subscriptionKey(account: "a", productID: monthly) }
        let next = try #require(h.store { $0.renewalInfoSnapshot(key) })
        let payload = next.payload(environment: "Sandbox", signedDate: 0, currency: "USD")
        #expect(payload.renewalPrice == 1990 && payload.offerType == 1 && payload.offerDiscountType == "PAY_AS_YOU_GO")
        var prices: [Int64?] = []
        for _ in 0..<3 {
            prices.append(try await h.step(.renew, monthly).transactions.first { $0.productId == monthly }?.price)
        }
        #expect(prices == [1990, 1990, 4990])
        let after = try #require(h.store { $0.renewalInfoSnapshot(key) }).payload(environment: "Sandbox", signedDate: 0, currency: "USD")
        #expect(after.renewalPrice == 4990 && after.offerType == nil)
    }

    // Apple: https://developer.apple.com/documentation/storekit/product/purchaseoption
    @Test("the look-alike asks for promotional and win-back offers with StoreKit's own options and for the introductory offer with none (purchaseoption)")
    func purchaseOptions() async throws {
        var catalog = ExampleMatrix.catalog
        let index = try #require(catalog.products.firstIndex { $0.productID == ExampleMatrix.yearly })
        catalog.products[index].promotionalOffers = [SubscriptionOffer(offerID: "loyal", paymentMode: .payUpFront, subscriptionPeriod: ISO8601Duration(years: 1), displayPrice: "29.99")]
        catalog.products[index].winBackOffers = [SubscriptionOffer(offerID: "comeback", paymentMode: .freeTrial, subscriptionPeriod: ISO8601Duration(months: 1))]
        let h = try Harness(catalog: catalog)
        let device = h.session.device(for: "a")
        let product = try #require(try await device.session.run { try await Product.products(for: [ExampleMatrix.yearly]) }.first)
        #expect(AppPurchaseRequest(productID: product.id, offer: "introductory").options(for: product).isEmpty)
        #expect(AppPurchaseRequest(productID: product.id).options(for: product).isEmpty)
        let promotional = AppPurchaseRequest(productID: product.id, offer: "loyal").options(for: product)
        #expect(promotional == [.promotionalOffer(offerID: "loyal", keyID: "any", nonce: UUID(), signature: Data(), timestamp: 1)])
        let winBack = AppPurchaseRequest(productID: product.id, offer: "comeback").options(for: product)
        #expect(winBack == [.winBackOffer(try #require(product.subscription?.winBackOffers.first))])
        #expect(promotional != winBack)
        let token = UUID()
        #expect(AppPurchaseRequest(productID: product.id, appAccountToken: token.uuidString).options(for: product) == [.appAccountToken(token)])
    }
}
