import Foundation
import Testing
import MatrixEngine
import MatrixModel
import StoreSimulator
import TestSupport

/// Auto-renewable subscription rules: renewal status, expiration intents, billing, refunds, Family Sharing,
/// level changes, offers and price increases, each checked against the Apple page it follows.
@Suite("Subscription rules")
struct SubscriptionRulesTests {
    let monthly = ExampleMatrix.monthly
    let yearly = ExampleMatrix.yearly
    let group = ExampleMatrix.groupName

    func subscribed(_ h: Harness, _ product: String? = nil) async throws -> Observation {
        _ = try await h.step(.launch)
        return try await h.step(.purchase, product ?? monthly)
    }

    // Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype/did_change_renewal_status
    @Test("auto-renew off then on: AUTO_RENEW_DISABLED, AUTO_RENEW_ENABLED, and the subscription renews")
    func autoRenewToggle() async throws {
        let h = try Harness()
        _ = try await subscribed(h)
        #expect(try await h.step(.disableAutoRenew, monthly).renewalInfo[group]?.autoRenewStatus == 0)
        let on = try await h.step(.enableAutoRenew, monthly)
        #expect(on.notifications == ["DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_ENABLED"])
        #expect(on.renewalInfo[group]?.autoRenewStatus == 1)
        #expect(try await h.step(.renew, monthly).notifications == ["DID_RENEW"])
    }

    // Apple: https://developer.apple.com/documentation/appstoreserverapi/expirationintent (4),
    // https://developer.apple.com/documentation/appstoreservernotifications/subtype (PRODUCT_NOT_FOR_SALE),
    // https://developer.apple.com/documentation/storekit/product/purchaseerror/productunavailable
    @Test("a product taken off sale keeps access until the renewal date, then expires with expirationIntent 4; it cannot be bought")
    func removedFromSale() async throws {
        let h = try Harness()
        _ = try await subscribed(h)
        let removed = try await h.step(.removeFromSale, monthly)
        #expect(removed.notifications == [])
        #expect(removed.access == ["plus"])
        let expired = try await h.step(.advanceTime, monthly) { $0.to = .expiration }
        #expect(expired.notifications == ["EXPIRED/PRODUCT_NOT_FOR_SALE"])
        #expect(expired.renewalInfo[group]?.expirationIntent == 4)
        #expect(expired.access == [])
        let again = try await h.step(.purchase, monthly)
        #expect(again.result == "failed")
        #expect(again.message?.contains("Product.PurchaseError.productUnavailable") == true)
        #expect(again.access == [])
        // A yearly subscriber renewing to another product is not affected.
        let other = try Harness()
        _ = try await subscribed(other, yearly)
        _ = try await other.step(.removeFromSale, monthly)
        #expect(try await other.step(.renew, yearly).access == ["premium"])
    }

    // Apple: https://developer.apple.com/help/app-store-connect/manage-subscriptions/enable-billing-grace-period-for-auto-renewable-subscriptions
    @Test("billing grace period lasts the days the app chose", arguments: [3, 16, 28])
    func gracePeriodLength(days: Int) async throws {
        let h = try Harness(store: StoreSettings(gracePeriodDays: days))
        _ = try await subscribed(h)
        _ = try await h.step(.failRenewal, monthly)
        let grace = try await h.step(.advanceTime, monthly) { $0.to = .expiration }
        let end = try #require(grace.renewalInfo[group]?.gracePeriodExpiresDate)
        #expect(end - h.store { $0.now } == Int64(days) * 86_400_000)
    }

    // Apple: https://developer.apple.com/documentation/storekit/reducing-involuntary-subscriber-churn
    @Test("recovered in the grace period the renewal date stays; recovered in billing retry the period starts at recovery")
    func recoveryDates() async throws {
        let grace = try Harness(store: StoreSettings(gracePeriodDays: 16))
        _ = try await subscribed(grace)
        _ = try await grace.step(.failRenewal, monthly)
        _ = try await grace.step(.advanceTime, monthly) { $0.to = .expiration }
        let failedAt = grace.store { $0.now }
        _ = try await grace.step(.advanceTime) { $0.by = ISO8601Duration(days: 5) }
        let inGrace = try await grace.step(.recoverBilling, monthly)
        let kept = try #require(inGrace.transactions.first { $0.productId == monthly })
        #expect(kept.expiresDate == ISO8601Duration(months: 1).added(to: failedAt))

        let retry = try Harness()
        _ = try await subscribed(retry)
        _ = try await retry.step(.failRenewal, monthly) { $0.gracePeriod = false }
        _ = try await retry.step(.advanceTime, monthly) { $0.to = .expiration }
        _ = try await retry.step(.advanceTime) { $0.by = ISO8601Duration(days: 20) }
        let recoveredAt = retry.store { $0.now }
        let moved = try #require(try await retry.step(.recoverBilling, monthly).transactions.first { $0.productId == monthly })
        #expect(moved.purchaseDate == recoveredAt)
        #expect(moved.expiresDate == ISO8601Duration(months: 1).added(to: recoveredAt))
    }

    // Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype/refund_declined,
    // https://developer.apple.com/documentation/appstoreservernotifications/notificationtype/refund_reversed
    @Test("a declined refund changes nothing; a reversed refund restores access")
    func refundDeclinedAndReversed() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        _ = try await h.step(.purchase, ExampleMatrix.pro)
        let declined = try await h.step(.declineRefund, ExampleMatrix.pro)
        #expect(declined.notifications == ["REFUND_DECLINED"] && declined.access == ["pro"])
        #expect(try await h.step(.refund, ExampleMatrix.pro).access == [])
        let reversed = try await h.step(.reverseRefund, ExampleMatrix.pro)
        #expect(reversed.notifications == ["REFUND_REVERSED"])
        #expect(reversed.access == ["pro"])
    }

    // Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype/revoke
    @Test("the organizer's refund revokes what Family Sharing gave members: REFUND for the organizer, REVOKE for the member")
    func organizerRefundRevokesMembers() async throws {
        let accounts = [Account(alias: "org", owns: [monthly]), Account(alias: "member", familyOrganizer: "org")]
        let h = try Harness(accounts: accounts, account: "member")
        #expect(try await h.step(.launch).access == ["plus"])
        let refund = try await h.step(.refund, monthly) { $0.account = "org" }
        #expect(refund.notifications == ["REFUND"])
        let member = try await h.step(.observe)
        #expect(member.access == [])
        #expect(member.notifications == ["REVOKE"])
        #expect(member.subscriptionStatus[group] == "revoked")
    }

    @Test("a member's shared subscription renews with the organizer's")
    func sharedRenewal() async throws {
        let accounts = [Account(alias: "org", owns: [monthly]), Account(alias: "member", familyOrganizer: "org")]
        let h = try Harness(accounts: accounts, account: "member")
        _ = try await h.step(.launch)
        _ = try await h.step(.renew, monthly) { $0.account = "org" }
        let member = try await h.step(.observe)
        #expect(member.access == ["plus"])
        #expect(member.notifications == ["DID_RENEW"])
        #expect(member.transactions.first?.inAppOwnershipType == "FAMILY_SHARED")
    }

    // Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/status-swift.property ("more
    // than one subscription status if your subscription supports Family Sharing"),
    // https://developer.apple.com/documentation/storekit/supporting-family-sharing-in-your-app ("each family member
    // gets their own unique receipts and transactions")
    @Test("a member's own subscription and the one the family shares live side by side: each renews, notifies and ends on its own (status)")
    func sharedBesideOwn() async throws {
        let accounts = [Account(alias: "org", owns: [monthly]), Account(alias: "member", familyOrganizer: "org")]
        let h = try Harness(accounts: accounts, account: "member")
        _ = try await h.step(.launch)
        let bought = try await h.step(.purchase, yearly)
        // A subscription of their own (not a change of the shared one), and the shared one stays.
        #expect(bought.notifications == ["SUBSCRIBED/INITIAL_BUY"])
        #expect(bought.entitlements == [monthly, yearly])
        #expect(bought.subscriptionStatus[group] == "subscribed")
        #expect(h.store { $0.subscriptionStatuses(account: "member").map { "\($0.transaction.productId) \($0.transaction.inAppOwnershipType)" } }
                == ["\(yearly) PURCHASED", "\(monthly) FAMILY_SHARED"])
        // The organizer's renewal renews the shared one: a FAMILY_SHARED renewal transaction and DID_RENEW for it.
        _ = try await h.step(.renew, monthly) { $0.account = "org" }
        let renewed = try await h.step(.observe)
        #expect(renewed.notifications == ["DID_RENEW"])
        let sharedRenewal = try #require(renewed.transactions.first { $0.productId == monthly })
        #expect(sharedRenewal.inAppOwnershipType == "FAMILY_SHARED" && sharedRenewal.transactionReason == "RENEWAL")
        #expect(h.store { $0.subscriptionStatuses(account: "member").first { $0.transaction.productId == monthly }?.transaction.transactionId }
                == sharedRenewal.transactionId)
        // The organizer's refund revokes the shared one only; the member's own keeps its access and status.
        _ = try await h.step(.refund, monthly) { $0.account = "org" }
        let revoked = try await h.step(.observe)
        #expect(revoked.notifications == ["REVOKE"])
        #expect(revoked.entitlements == [yearly])
        #expect(revoked.subscriptionStatus[group] == "subscribed")
        #expect(h.store { $0.subscriptionStatuses(account: "member").map(\.state) } == [.subscribed, .revoked])
    }

    @Test("a subscriber whose organizer starts sharing keeps their own; when their own ends, the shared one still serves them (status)")
    func sharingReachesSubscriber() async throws {
        let accounts = [Account(alias: "org"), Account(alias: "member", owns: [yearly], familyOrganizer: "org")]
        let h = try Harness(accounts: accounts, account: "member")
        _ = try await h.step(.launch)
        _ = try await h.step(.purchaseOutsideApp, monthly) { $0.account = "org" }
        let shared = try await h.step(.observe)
        #expect(shared.notifications == ["SUBSCRIBED/INITIAL_BUY"])
        #expect(shared.transactions.first { $0.productId == monthly }?.inAppOwnershipType == "FAMILY_SHARED")
        #expect(shared.entitlements == [monthly, yearly])
        #expect(shared.renewalInfo[group]?.productId == yearly, "renewal info stays the member's own")
        _ = try await h.step(.expire, yearly)
        let ownEnded = try await h.step(.observe)
        #expect(ownEnded.entitlements == [monthly])
        #expect(ownEnded.subscriptionStatus[group] == "subscribed")
        #expect(h.store { $0.subscriptionStatuses(account: "member").map(\.state) } == [.expired, .subscribed])
    }

    // Apple: https://developer.apple.com/app-store/subscriptions/#upgrading-downgrading-and-crossgrading
    @Test("a downgrade waits for the next renewal: autoRenewProductId changes now, the product at renewal")
    func downgrade() async throws {
        let h = try Harness()
        _ = try await subscribed(h, yearly)
        let chosen = try await h.step(.purchase, monthly)
        #expect(chosen.notifications == ["DID_CHANGE_RENEWAL_PREF/DOWNGRADE"])
        #expect(chosen.access == ["premium"])
        #expect(chosen.renewalInfo[group]?.autoRenewProductId == monthly)
        let renewed = try await h.step(.renew, yearly)
        #expect(renewed.access == ["plus"])
        #expect(renewed.renewalInfo[group]?.productId == monthly)
    }

    /// A group with two subscriptions on one level: monthly and yearly "Basic", plus a monthly "Team".
    static let crossgradeCatalog = StoreKitConfiguration(
        products: [
            CatalogProduct(productID: "basic.monthly", type: .autoRenewable, displayPrice: "2.99", subscriptionGroupID: "g",
                           groupNumber: 1, recurringSubscriptionPeriod: ISO8601Duration(months: 1)),
            CatalogProduct(productID: "team.monthly", type: .autoRenewable, displayPrice: "5.99", subscriptionGroupID: "g",
                           groupNumber: 1, recurringSubscriptionPeriod: ISO8601Duration(months: 1)),
            CatalogProduct(productID: "basic.yearly", type: .autoRenewable, displayPrice: "29.99", subscriptionGroupID: "g",
                           groupNumber: 1, recurringSubscriptionPeriod: ISO8601Duration(years: 1)),
        ],
        subscriptionGroups: [SubscriptionGroup(id: "g", name: "Plans", productIDs: ["basic.monthly", "team.monthly", "basic.yearly"])])
    static let crossgradeTiers = [Tier(name: "basic", productIDs: ["basic.monthly", "basic.yearly"]), Tier(name: "team", productIDs: ["team.monthly"])]

    // Apple: https://developer.apple.com/documentation/appstoreservernotifications/subtype (UPGRADE: "upgraded their
    // subscription or cross-graded to a subscription with the same duration"; DOWNGRADE: "downgraded their subscription
    // or cross-graded to a subscription with a different duration"),
    // https://developer.apple.com/app-store/subscriptions/#upgrading-downgrading-and-crossgrading
    @Test("a crossgrade to the same duration takes effect at once as UPGRADE; to another duration at the next renewal as DOWNGRADE (subtype page)")
    func crossgrade() async throws {
        let same = try Harness(catalog: Self.crossgradeCatalog, tiers: Self.crossgradeTiers)
        _ = try await subscribed(same, "basic.monthly")
        let now = try await same.step(.purchase, "team.monthly")
        #expect(now.access == ["team"])
        #expect(now.notifications == ["DID_CHANGE_RENEWAL_PREF/UPGRADE"])

        let other = try Harness(catalog: Self.crossgradeCatalog, tiers: Self.crossgradeTiers)
        _ = try await subscribed(other, "basic.monthly")
        let later = try await other.step(.purchase, "basic.yearly")
        #expect(later.notifications == ["DID_CHANGE_RENEWAL_PREF/DOWNGRADE"])
        #expect(later.renewalInfo["Plans"]?.autoRenewProductId == "basic.yearly")
        _ = try await other.step(.renew, "basic.monthly")
        #expect(other.store { $0.subscription(account: "a", product: "basic.yearly")?.productId } == "basic.yearly")
    }

    // Apple: https://developer.apple.com/documentation/appstoreserverapi/status
    @Test("subscription status codes: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked")
    func statusCodes() {
        #expect(RenewalState.allCases.map(\.statusCode) == [1, 2, 3, 4, 5])
        #expect(RenewalState.allCases.map(\.rawValue) == ["subscribed", "expired", "inBillingRetryPeriod", "inGracePeriod", "revoked"])
    }

    @Test("resubscribing after expiry keeps the originalTransactionId and sends SUBSCRIBED/RESUBSCRIBE")
    func resubscribe() async throws {
        let h = try Harness()
        _ = try await subscribed(h)
        _ = try await h.step(.expire, monthly)
        let again = try await h.step(.purchase, monthly)
        #expect(again.notifications == ["SUBSCRIBED/RESUBSCRIBE"])
        #expect(Set(h.store { $0.transactions.map(\.originalTransactionId) }).count == 1)
    }

    // A runaway advance does not end: the time limit (generous, as the test awaits among the whole suite) catches it.
    @Test("moving the clock across more renewals than anyone means is refused quickly instead of exhausting memory", .timeLimit(.minutes(5)))
    func runawayAdvance() async throws {
        let h = try Harness()
        _ = try await subscribed(h)
        await #expect(throws: AdapterError.self) {
            _ = try await h.step(.advanceTime) { $0.by = ISO8601Duration(years: 1_000_000) }
        }
        #expect(h.store { $0.transactions.count } <= AppStoreSimulator.maximumEventsPerAdvance + 1)
    }
}
