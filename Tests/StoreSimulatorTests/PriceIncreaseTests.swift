import Foundation
import Testing
import MatrixModel
import StoreSimulator
import TestSupport

/// A price increase that needs the customer's consent: requested with its new price, consented or declined or
/// left unanswered.
/// Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype (PRICE_INCREASE),
/// https://developer.apple.com/documentation/appstoreserverapi/expirationintent
@Suite("Price increases")
struct PriceIncreaseTests {
    // The yearly plan has no introductory offer: its first renewal is a regular one.
    let yearly = ExampleMatrix.yearly
    let group = ExampleMatrix.groupName

    func subscribedAndAsked(_ h: Harness, price: String = "49.99") async throws -> Observation {
        _ = try await h.step(.launch)
        _ = try await h.step(.purchase, yearly)
        return try await h.step(.requestPriceIncrease, yearly) { $0.price = price }
    }

    func renewalInfo(_ h: Harness) throws -> RenewalInfoSnapshot {
        let key = try h.store { try $0.subscriptionKey(account: "a", productID: ExampleMatrix.yearly) }
        return try #require(h.store { $0.renewalInfoSnapshot(key) })
    }

    // Apple: https://developer.apple.com/documentation/appstoreserverapi/expirationintent (3: the customer didn't
    // consent to a price increase that requires their consent, so the subscription expired)
    @Test("an unanswered consent-required price increase expires the subscription at the period's end: EXPIRED/PRICE_INCREASE, expired, expirationIntent 3 (expirationintent)")
    func unanswered() async throws {
        let h = try Harness()
        let asked = try await subscribedAndAsked(h)
        #expect(asked.notifications == ["PRICE_INCREASE/PENDING"])
        #expect(try renewalInfo(h).subscription.priceIncreaseStatus == 0)
        let end = try await h.step(.advanceTime, yearly) { $0.to = .expiration }
        #expect(end.notifications == ["EXPIRED/PRICE_INCREASE"])
        #expect(end.subscriptionStatus[group] == "expired")
        #expect(end.renewalInfo[group]?.expirationIntent == 3)
        #expect(end.renewalInfo[group]?.autoRenewStatus == 0)
        #expect(end.renewals == 0 && end.access == [])
    }

    @Test("a declined price increase turns auto-renew off now and expires the subscription with expirationIntent 3 (expirationintent)")
    func declined() async throws {
        let h = try Harness()
        _ = try await subscribedAndAsked(h)
        let declined = try await h.step(.declinePriceIncrease, yearly)
        #expect(declined.notifications == ["DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED"])
        #expect(declined.access == ["premium"])
        let expired = try await h.step(.advanceTime, yearly) { $0.to = .expiration }
        #expect(expired.notifications == ["EXPIRED/PRICE_INCREASE"])
        #expect(expired.renewalInfo[group]?.expirationIntent == 3)
        #expect(expired.access == [])
    }

    // Apple: https://developer.apple.com/documentation/appstoreservernotifications/subtype (ACCEPTED),
    // https://developer.apple.com/documentation/appstoreserverapi/renewalprice
    @Test("the new price is the renewal info's renewalPrice and the product's price; after consent the renewal charges it (renewalprice)")
    func consented() async throws {
        let h = try Harness()
        _ = try await subscribedAndAsked(h)
        #expect(try renewalInfo(h).payload(environment: "Sandbox", signedDate: 0, currency: "USD").renewalPrice == 49990)
        // New customers pay the new price, and StoreKit shows it.
        #expect(h.store { store in store.catalog.product(ExampleMatrix.yearly).map { store.displayPrice(of: $0) } } == "49.99")
        #expect(try await h.step(.consentToPriceIncrease, yearly).notifications == ["PRICE_INCREASE/ACCEPTED"])
        #expect(try renewalInfo(h).subscription.priceIncreaseStatus == 1)
        let renewed = try await h.step(.renew, yearly)
        #expect(renewed.notifications == ["DID_RENEW"] && renewed.access == ["premium"])
        #expect(renewed.transactions.first { $0.productId == yearly }?.price == 49990)
        // The increase is no longer pending once it took effect; the next renewal keeps the new price.
        let after = try renewalInfo(h).payload(environment: "Sandbox", signedDate: 0, currency: "USD")
        #expect(after.priceIncreaseStatus == nil && after.renewalPrice == 49990)
    }

    @Test("a price increase must raise the price the subscriber pays")
    func mustIncrease() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        _ = try await h.step(.purchase, yearly)
        await #expect(throws: (any Error).self) {
            _ = try await h.step(.requestPriceIncrease, yearly) { $0.price = "39.99" }
        }
    }
}
