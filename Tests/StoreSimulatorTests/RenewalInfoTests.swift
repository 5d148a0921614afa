import Foundation
import Testing
import AppStoreModels
import MatrixModel
import StoreSimulator
import TestSupport

/// Renewal info and transaction fields as Apple documents them: billing retry and grace period, renewal dates of
/// ended subscriptions, the recent subscription start, the app account token, refunds and the app transaction.
@Suite("Renewal info and transaction fields")
struct RenewalInfoTests {
    let monthly = ExampleMatrix.monthly
    let yearly = ExampleMatrix.yearly
    let group = ExampleMatrix.groupName

    /// The renewal info the store would sign now for the account's subscription to `product`.
    func payload(_ h: Harness, _ product: String) throws -> JWSRenewalInfoDecodedPayload {
        let key = try h.store { try $0.subscriptionKey(account: "a", productID: product) }
        let snapshot = try #require(h.store { $0.renewalInfoSnapshot(key) })
        return snapshot.payload(environment: "Sandbox", signedDate: 0, currency: "USD")
    }

    // Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/renewalinfo/isinbillingretry
    // (isInBillingRetry true + billingError + a grace date: grace period; true + billingError + none: billing retry;
    // false + billingError: billing retry gave up)
    @Test("billing retry and grace period: expirationIntent 2 with isInBillingRetryPeriod true; after retry gives up, false and present (isinbillingretry)")
    func billingRetryTable() async throws {
        let grace = try Harness(store: StoreSettings(gracePeriodDays: 16))
        _ = try await grace.step(.launch)
        _ = try await grace.step(.purchase, yearly)
        _ = try await grace.step(.failRenewal, yearly)
        let inGrace = try await grace.step(.advanceTime, yearly) { $0.to = .expiration }
        #expect(inGrace.subscriptionStatus[group] == "inGracePeriod")
        #expect(inGrace.renewalInfo[group]?.expirationIntent == 2 && inGrace.renewalInfo[group]?.isInBillingRetryPeriod == true)
        #expect(inGrace.renewalInfo[group]?.gracePeriodExpiresDate != nil)
        let inRetry = try await grace.step(.advanceTime, yearly) { $0.to = .gracePeriodEnd }
        #expect(inRetry.subscriptionStatus[group] == "inBillingRetryPeriod")
        #expect(inRetry.renewalInfo[group]?.expirationIntent == 2 && inRetry.renewalInfo[group]?.isInBillingRetryPeriod == true)
        #expect(inRetry.renewalInfo[group]?.gracePeriodExpiresDate == nil)
        let gaveUp = try await grace.step(.advanceTime, yearly) { $0.to = .billingRetryEnd }
        #expect(gaveUp.subscriptionStatus[group] == "expired")
        #expect(gaveUp.renewalInfo[group]?.expirationIntent == 2 && gaveUp.renewalInfo[group]?.isInBillingRetryPeriod == false)
        // Signed renewal info says false rather than leaving the field out.
        #expect(try payload(grace, yearly).isInBillingRetryPeriod == false)
        // Recovered in time, the intent is cleared.
        let recovered = try Harness()
        _ = try await recovered.step(.launch)
        _ = try await recovered.step(.purchase, yearly)
        _ = try await recovered.step(.failRenewal, yearly) { $0.gracePeriod = false }
        _ = try await recovered.step(.advanceTime, yearly) { $0.to = .expiration }
        let back = try await recovered.step(.recoverBilling, yearly)
        #expect(back.renewalInfo[group]?.expirationIntent == nil && back.renewalInfo[group]?.isInBillingRetryPeriod == false)
    }

    // Apple: https://developer.apple.com/documentation/appstoreservernotifications/renewaldate
    @Test("renewalDate is always present: the end of the latest period, also for expired and revoked subscriptions (renewaldate)")
    func renewalDateAlways() async throws {
        let expired = try Harness()
        _ = try await expired.step(.launch)
        _ = try await expired.step(.purchase, yearly)
        _ = try await expired.step(.disableAutoRenew, yearly)
        let end = try await expired.step(.advanceTime, yearly) { $0.to = .expiration }
        let latest = try #require(end.transactions.first { $0.productId == yearly })
        #expect(end.renewalInfo[group]?.renewalDate == latest.expiresDate)
        #expect(try payload(expired, yearly).renewalDate?.milliseconds == latest.expiresDate)
        let revoked = try Harness()
        _ = try await revoked.step(.launch)
        _ = try await revoked.step(.purchase, yearly)
        let refunded = try await revoked.step(.refund, yearly)
        #expect(refunded.subscriptionStatus[group] == "revoked")
        #expect(refunded.renewalInfo[group]?.renewalDate != nil)
        #expect(try payload(revoked, yearly).renewalDate != nil)
    }

    // Apple: https://developer.apple.com/documentation/appstoreserverapi/recentsubscriptionstartdate
    @Test("recentSubscriptionStartDate ignores a lapse of up to 60 days; a longer lapse starts a new run (recentsubscriptionstartdate)", arguments: [30, 61])
    func recentStart(lapseDays: Int) async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        _ = try await h.step(.purchase, yearly)
        let start = h.store { $0.now }
        _ = try await h.step(.disableAutoRenew, yearly)
        _ = try await h.step(.advanceTime, yearly) { $0.to = .expiration }
        _ = try await h.step(.advanceTime) { $0.by = ISO8601Duration(days: lapseDays) }
        let resubscribedAt = h.store { $0.now }
        _ = try await h.step(.purchase, yearly)
        let recent = try payload(h, yearly).recentSubscriptionStartDate?.milliseconds
        #expect(recent == (lapseDays <= 60 ? start : resubscribedAt))
    }

    // Apple: https://developer.apple.com/documentation/appstoreserverapi/appaccounttoken
    @Test("the appAccountToken of the purchase carries over to renewals and to renewal info (appaccounttoken)")
    func appAccountTokenCarriesOver() async throws {
        let token = "7e1d5d4a-2c5b-4a63-9e0b-6f1a2b3c4d5e"
        let h = try Harness()
        _ = try await h.step(.launch)
        _ = try await h.step(.purchase, yearly) { $0.appAccountToken = token.uppercased() }
        let renewed = try await h.step(.renew, yearly)
        let id = try #require(renewed.transactions.first { $0.productId == yearly }?.transactionId)
        #expect(h.store { $0.transaction(id)?.transactionReason } == "RENEWAL")
        #expect(h.store { $0.transaction(id)?.appAccountToken } == token)
        #expect(try payload(h, yearly).appAccountToken == token)
    }

    // Apple: https://developer.apple.com/documentation/appstoreserverapi/revocationpercentage,
    // https://developer.apple.com/documentation/appstoreserverapi/apptransactionid
    @Test("a refunded transaction has revocationPercentage 100000; every transaction and renewal info carries the account's appTransactionId (revocationpercentage, apptransactionid)")
    func refundAndAppTransaction() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        _ = try await h.step(.purchase, ExampleMatrix.pro)
        _ = try await h.step(.purchase, yearly)
        let refunded = try await h.step(.refund, ExampleMatrix.pro)
        let id = try #require(refunded.transactionIds.first)
        let signed = try #require(h.store { $0.transaction(id) }).payload(bundleId: "b", environment: "Sandbox", signedDate: 0)
        #expect(signed.revocationPercentage == 100_000 && signed.revocationType == "REFUND_FULL")
        let ids = Set(h.store { $0.transactions.map(\.appTransactionId) })
        let appTransactionId = try #require(ids.count == 1 ? ids.first ?? nil : nil)
        #expect(try payload(h, yearly).appTransactionId == appTransactionId)
        // Another account has its own.
        _ = try await h.step(.launch) { $0.account = "b" }
        _ = try await h.step(.purchase, yearly) { $0.account = "b" }
        let second = h.store { $0.transactions.filter { $0.account == "b" }.map(\.appTransactionId) }
        #expect(second.count == 1 && second.first != appTransactionId && second.first != nil)
    }

    // Apple: https://developer.apple.com/documentation/storekit/storefront
    @Test("an unknown storefront is refused before anything is signed, never signed as the United States storefront (storefront)")
    func unknownStorefront() throws {
        #expect(throws: (any Error).self) { _ = try Harness(store: StoreSettings(storefront: "XYZ")) }
        let gbr = try Harness(store: StoreSettings(storefront: "GBR"))
        #expect(gbr.store { $0.configuration.storefrontDetails } == AppStoreStorefront(countryCode: "GBR", id: "143444", currency: "GBP"))
    }
}
