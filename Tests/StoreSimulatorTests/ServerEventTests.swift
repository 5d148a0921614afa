import Foundation
import Testing
import MatrixModel
import StoreSimulator
import TestSupport

/// Events of the App Store's servers: refund requests, renewal-date extensions and test notifications.
/// Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype
@Suite("Server events")
struct ServerEventTests {
    let yearly = ExampleMatrix.yearly
    let group = ExampleMatrix.groupName

    // Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype (CONSUMPTION_REQUEST:
    // "the customer initiated a refund request for a consumable In-App Purchase or auto-renewable subscription")
    @Test("a refund request for a consumable or a subscription sends CONSUMPTION_REQUEST; for a non-consumable nothing; declined, REFUND_DECLINED (notificationtype)")
    func refundRequest() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        _ = try await h.step(.purchase, ExampleMatrix.coins)
        _ = try await h.step(.purchase, ExampleMatrix.pro)
        _ = try await h.step(.purchase, yearly)
        #expect(try await h.step(.requestRefund, ExampleMatrix.coins).notifications == ["CONSUMPTION_REQUEST"])
        #expect(try await h.step(.requestRefund, yearly).notifications == ["CONSUMPTION_REQUEST"])
        #expect(try await h.step(.requestRefund, ExampleMatrix.pro).notifications == [])
        let declined = try await h.step(.declineRefund, ExampleMatrix.coins)
        #expect(declined.notifications == ["REFUND_DECLINED"] && declined.balance == ["coins": 100])
        let reason = h.store { $0.notifications.first { $0.notificationType == "CONSUMPTION_REQUEST" }?.consumptionRequestReason }
        #expect(reason == "OTHER")
    }

    // Apple: https://developer.apple.com/documentation/appstoreserverapi/extend-a-subscription-renewal-date,
    // https://developer.apple.com/documentation/appstoreserverapi/extendbydays
    @Test("a renewal-date extension moves expiresDate and the renewal date: RENEWAL_EXTENDED, 1 to 90 days, twice a year at most (extend-a-subscription-renewal-date)")
    func renewalExtension() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        let bought = try await h.step(.purchase, yearly)
        let before = try #require(bought.transactions.first { $0.productId == yearly }?.expiresDate)
        let extended = try await h.step(.extendRenewalDate, yearly) { $0.extendByDays = 30 }
        #expect(extended.notifications == ["RENEWAL_EXTENDED"])
        let after = try #require(extended.transactions.first { $0.productId == yearly })
        #expect(after.expiresDate == before + 30 * 86_400_000)
        #expect(extended.renewalInfo[group]?.renewalDate == after.expiresDate)
        // Past the old date the customer still has access; the renewal comes at the new one.
        let past = try await h.step(.advanceTime) { $0.by = ISO8601Duration(days: 370) }
        #expect(past.access == ["premium"] && past.renewals == 0)
        // A year after the first extension two more may follow, and no third within 365 days.
        _ = try await h.step(.extendRenewalDate, yearly) { $0.extendByDays = 1 }
        _ = try await h.step(.extendRenewalDate, yearly) { $0.extendByDays = 90 }
        await #expect(throws: (any Error).self) { _ = try await h.step(.extendRenewalDate, yearly) { $0.extendByDays = 1 } }
        let fresh = try Harness()
        _ = try await fresh.step(.launch)
        _ = try await fresh.step(.purchase, yearly)
        await #expect(throws: (any Error).self) { _ = try await fresh.step(.extendRenewalDate, yearly) { $0.extendByDays = 91 } }
    }

    // Apple: https://developer.apple.com/documentation/appstoreserverapi/extend-subscription-renewal-dates-for-all-active-subscribers,
    // https://developer.apple.com/documentation/appstoreservernotifications/summary
    @Test("extending every active subscriber: RENEWAL_EXTENDED for each, RENEWAL_EXTENSION/SUMMARY with the counts (summary)")
    func extendAll() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        _ = try await h.step(.purchase, yearly)
        _ = try await h.step(.launch) { $0.account = "b" }
        _ = try await h.step(.purchase, yearly) { $0.account = "b" }
        let all = try await h.step(.extendRenewalDatesForAllSubscribers, yearly) { $0.extendByDays = 7 }
        #expect(all.notifications == ["RENEWAL_EXTENDED", "RENEWAL_EXTENSION/SUMMARY"])
        let summary = try #require(h.store { $0.notifications.last?.summary })
        #expect(summary.succeededCount == 2 && summary.failedCount == 0 && summary.productId == yearly)
        #expect(h.store { $0.notifications.filter { $0.notificationType == "RENEWAL_EXTENDED" }.map(\.account) } == ["a", "b"])
    }

    // Apple: https://developer.apple.com/documentation/appstoreserverapi/request-a-test-notification
    @Test("a requested test notification is TEST, without a transaction (request-a-test-notification)")
    func testNotification() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        let test = try await h.step(.requestTestNotification)
        #expect(test.notifications == ["TEST"])
        #expect(h.store { $0.notifications.last.map { $0.transaction == nil && $0.renewalInfo == nil } } == true)
    }
}
